import { el } from "./dom.js";
import type { StateView } from "./wire.js";

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

/** The arm's faults in `box`, those that clear the same way on one line with how they clear; hidden when there are none. */
export function showFaults(box: HTMLElement, state: StateView | undefined): void {
  const faults = state?.faults ?? [];
  const key = faults.join("\n");
  if (box.dataset.faults === key) return;
  box.dataset.faults = key;
  box.hidden = faults.length === 0;
  // Faults that clear the same way share a line ("stall:wrist_2" and "axis wrist_2 stalled" are one event).
  const help = new Map((state?.fault_help ?? []).map((h) => [h.fault, h.clears]));
  const byAdvice = new Map<string, string[]>();
  for (const f of faults) {
    const clears = help.get(f) ?? howFaultClears(f);
    byAdvice.set(clears, [...(byAdvice.get(clears) ?? []), f]);
  }
  box.replaceChildren(
    ...[...byAdvice].map(([advice, fs]) =>
      el("p", {}, [el("b", { text: `Arm fault: ${fs.join(", ")}. ` }), document.createTextNode(advice)]),
    ),
  );
}
