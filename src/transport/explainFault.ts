/** A fault the arm reports, with what clears it, in words for the operator at the arm. */
export interface FaultHelp {
  readonly fault: string;
  readonly clears: string;
}

/**
 * What clears each fault string the transports report — a red fault pill
 * that says nothing about how it goes away leaves an operator stuck.
 * Confirming an unknown action never clears a fault: the fault is the arm's.
 *
 * - `stall:AXIS`, `watchdog`: the serial protocol's faults, and `axis AXIS
 *   stalled`, the same stall read from a STATUS sample's stalled flag (§3.6)
 *   (docs/serial-protocol.md §3.3: STOP clears stall faults on its axes, and a
 *   new motion on the axis clears it too; §5: `watchdog` lasts until the host's
 *   next frame).
 * - `servo N (name): …`: the servo-bus transport's. Torque off without a
 *   hardware error comes back by itself (the transport re-arms the servo
 *   holding its position). A Dynamixel hardware error latches until the servo
 *   is rebooted or power-cycled (ROBOTIS e-manual, X series control table,
 *   "Hardware Error Status (70)":
 *   https://emanual.robotis.com/docs/en/dxl/x/xm430-w350/#hardware-error-status);
 *   the transport leaves torque off on a servo with one, and on one that
 *   shut down (tripped) until an operator runs `armbridge recover`
 *   (docs/servo-bus.md, "A servo that shuts down").
 */
export function explainFault(fault: string): FaultHelp {
  const stall = /^stall:(.+)$/.exec(fault) ?? /^axis (.+) stalled$/.exec(fault);
  if (stall) {
    const axis = stall[1] ?? "";
    return {
      fault,
      clears: `${axis} stalled (blocked or overloaded). Remove the obstruction; the fault clears with a stop on ${axis} (armbridge call stop --args '{"joints":["${axis}"]}') or with the next motion on it.`,
    };
  }
  if (fault === "watchdog") {
    return {
      fault,
      clears:
        "The arm stopped because it heard nothing from the bridge. It clears when the bridge's next frame reaches the arm, which happens by itself while the link is connected.",
    };
  }
  const servo = /^servo (\d+) \(([^)]*)\): (.+)$/.exec(fault);
  if (servo) {
    const [, id, name, what] = servo;
    const recover = `armbridge recover --joint ${name ?? "JOINT"} --operator NAME`;
    if (what === "torque off") {
      return {
        fault,
        clears: `Servo ${id} (${name}) has torque off (it lost power, or was switched off). The bridge switches it back on holding its position once it answers with no hardware error.`,
      };
    }
    if (what?.startsWith("shut down on ")) {
      return {
        fault,
        clears: `Servo ${id} (${name}) shut down on a hardware error and stays limp; motions on it are refused. Find the cause at the arm (something in the way, heat, supply voltage), then run ${recover}: it reboots the servo where the protocol can and switches torque back on holding the present position.`,
      };
    }
    return {
      fault,
      clears: `Servo ${id} (${name}) reports a hardware error (${what}); the bridge leaves its torque off. Check the cause (overload, heat, voltage) first; then ${recover} reboots it (or power-cycle the arm).`,
    };
  }
  return { fault, clears: "Reported by the arm itself; the bridge does not clear it. See the arm's documentation." };
}
