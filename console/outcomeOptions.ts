import type { ActionView, ConfirmOption } from "./wire.js";

/**
 * What the operator may say about an unknown motion: only what can be seen at
 * the arm. The bridge describes each choice (confirm_options on GET
 * /v1/actions/:id); these words are used only when it does not (an older
 * bridge), and say the same things.
 */
export const OUTCOMES = ["reached", "partial", "not_moved"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Where the arm is taken to be after each choice: said on the button, since the model will act on it. */
export const WHERE_THE_ARM_IS: Readonly<Record<Outcome, string>> = {
  reached: "The arm is taken to be at the target.",
  partial: "The arm may now be anywhere between its start and the target.",
  not_moved: "The arm is taken to be where it started (if it moved at all, choose part-way).",
};

/** A choice as the card shows it: the bridge's confirm option, or a fallback that lacks its longer words. */
export type ShownOption = Omit<ConfirmOption, "what_follows" | "state"> &
  Partial<Pick<ConfirmOption, "what_follows" | "state">>;

export function isOutcome(s: string): s is Outcome {
  return (OUTCOMES as readonly string[]).includes(s);
}

export function fallbackOptions(a: ActionView): readonly ShownOption[] {
  const releases = a.resources;
  return [
    {
      outcome: "reached",
      label: "It reached the target",
      releases,
      model_is_told: "the motion happened; no need to repeat it",
    },
    {
      outcome: "partial",
      label: "It stopped short / moved part-way",
      releases,
      model_is_told: "the motion happened only in part; read the arm's state before deciding what to do next",
    },
    {
      outcome: "not_moved",
      label: "It did not move",
      releases,
      model_is_told: "the motion did not happen; re-running it is allowed",
    },
  ];
}

export function releasesText(releases: ConfirmOption["releases"]): string {
  const names = releases.map((r) => r.replace(/^joint:/, ""));
  return names.length ? names.join(", ") : "nothing";
}
