import type { LinkLifecycle } from "../link/LinkLifecycle.js";
import type { BusMotions } from "./BusMotions.js";
import type { BusServos } from "./BusServos.js";
import type { BusStatusLoop } from "./BusStatusLoop.js";
import type { BusProtocol } from "../../protocol/bus/index.js";
import type { ServoArming } from "./ServoArming.js";
import type { ServoState } from "./ServoState.js";

export interface ServoTorqueContext {
  readonly protocol: BusProtocol;
  readonly servos: BusServos;
  readonly arming: ServoArming;
  readonly loop: BusStatusLoop;
  readonly motions: BusMotions;
  readonly lifecycle: LinkLifecycle;
  readonly notePowerLoss: (s: ServoState, why: string) => void;
}

/**
 * After each status cycle, what each servo's torque and error bits say: a
 * hardware error is a trip; torque off that nobody asked for is a trip
 * already noted or a power loss (the servo browned out and came back); a
 * servo back from a power loss is armed again where it stands.
 */
export function judgeServoTorque(c: ServoTorqueContext): void {
  const t = c.protocol.table;
  const torqueBlock = t.statusBlocks.findIndex(
    (b) => b.address <= t.torqueEnable.address && t.torqueEnable.address < b.address + b.size,
  );
  for (const s of c.servos.list) {
    if (c.servos.get(s, t.hardwareError) !== 0) c.arming.noteTrip(s);
    // Only a torque reading taken after we armed it counts (a read that timed out leaves an old one).
    if (s.armed && (s.blockStamps[torqueBlock] ?? 0) > s.armedAt && c.servos.get(s, t.torqueEnable) === 0) {
      if (s.tripped) {
        s.armed = false;
      } else {
        // Torque off that we did not ask for, with no error, and no gap in the replies
        // long enough to drop the link: the servo browned out and came back.
        const inFlight = c.motions.inFlight();
        c.notePowerLoss(s, `servo ${s.axis.id} (${s.axis.name}) lost power during the motion`);
        c.lifecycle.restarted(
          `servo ${s.axis.id} (${s.axis.name}) came back with torque off: a power loss the replies showed no gap for`,
          inFlight,
        );
      }
    }
    // A servo that came back from a power loss holds where it is again (that cannot move the arm);
    // one that tripped stays off until an operator recovers it: the cause is at the arm, not on the bus.
    if (!s.armed && !s.arming && !s.tripped) {
      s.arming = true;
      // A fresh read first, so the hold is not a stale position.
      void c.loop
        .readAll()
        .then(() => c.arming.arm(s))
        .finally(() => (s.arming = false));
    }
  }
}

/** Reads in a row a servo must miss, besides stale_after_ms passing, before the bus counts as lost. */
const SILENT_READS = 3;

/**
 * Every servo must have answered within stale_after_ms; one that has not
 * means the bus is not whole. Counted in reads it missed too, not only in
 * time: a stall of this process's own event loop (a busy start-up) makes a
 * read time out once, a silent servo makes every read time out.
 */
export function silentServos(
  servos: readonly ServoState[],
  now: number,
  loopStartedAt: number,
  staleAfterMs: number,
): number[] {
  return servos
    .filter((s) => s.missedReads >= SILENT_READS && now - Math.max(s.stampMs, loopStartedAt) > staleAfterMs)
    .map((s) => s.axis.id);
}
