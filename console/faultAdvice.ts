/**
 * How each fault the arm reports clears, in the operator's words. Faults
 * come from the device and are not cleared by confirming an unknown: the
 * pill must not leave the operator guessing. The simulator's stall clears on
 * a stop of the axis or its next motion (firmware-sim/SimulatedArm.ts `stop`,
 * `startMotion`); a real controller's reset is in its own manual.
 */
const ADVICE: readonly { readonly match: RegExp; readonly clears: string }[] = [
  {
    match: /^stall:|stalled$/,
    clears: "Clears with HALT or the axis's next motion \u2014 not by confirming an unknown.",
  },
  {
    match: /watchdog/i,
    clears:
      "The arm halted: it stopped hearing the bridge. Clears once the link is back and the arm is stopped or moved.",
  },
];

const OTHER =
  "Reported by the arm itself; it clears when the arm stops reporting it (a HALT resets most drive faults). Confirming an unknown does not clear it.";

export function howFaultClears(fault: string): string {
  return ADVICE.find((a) => a.match.test(fault))?.clears ?? OTHER;
}
