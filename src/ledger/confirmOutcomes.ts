import type { ActionRowState, ConfirmOutcome } from "../wire/vocabulary.js";
import type { ActionRow, ObservedPose } from "./ActionRow.js";

/** What a confirmation's words are built from. */
export interface ConfirmationFacts {
  readonly tool: string;
  readonly actionId: string;
  /** Undefined when the words are shown before anyone confirmed (the console's buttons). */
  readonly operator: string | undefined;
  readonly note: string | undefined;
  /** The motion's absolute targets, axis → value. */
  readonly targets: Readonly<Record<string, number>>;
  /** The pose the bridge saw when the operator confirmed (or sees now, for the buttons). */
  readonly observed: ObservedPose | undefined;
}

export interface ConfirmOutcomeRule {
  /** The ledger state the row moves to (added states only; none renamed). */
  readonly state: Extract<ActionRowState, `confirmed_${string}`>;
  /** The button's words: what the operator saw. */
  readonly label: string;
  /** The result status the model gets from now on. */
  readonly status: "done" | "stopped" | "failed";
  /** The resources the confirmation lifts from quarantine. */
  readonly releases: (row: Pick<ActionRow, "resources">) => readonly string[];
  /** The result message the model reads (get_action_status, a replayed call id). */
  readonly modelIsTold: (facts: ConfirmationFacts) => string;
  /** What happened, in words for the operator and the history (not the model's text). */
  readonly operatorSays: (facts: ConfirmationFacts) => string;
  /** What pressing the button does, in words for the operator beside it. */
  readonly whatFollows: (facts: ConfirmationFacts) => string;
}

/**
 * Every operator outcome and everything it does, in one exhaustive table: a
 * new outcome does not compile until it has its state, its words for the
 * model and the operator, and says what it releases. The console shows
 * `label`, `releases` and `modelIsTold` verbatim (GET /v1/actions/:id
 * `confirm_options`), so the button says what will follow.
 *
 * Every outcome releases every resource of the action: after a person has
 * looked, the arm is where they saw it, and holding its joints would only
 * block the next motion, which starts from the observed pose. The words
 * differ in what they tell the model about where the arm is.
 */
export const CONFIRM_OUTCOME_RULES: Readonly<Record<ConfirmOutcome, ConfirmOutcomeRule>> = {
  reached: {
    state: "confirmed_done",
    label: "Reached the target",
    status: "done",
    releases: (row) => row.resources,
    modelIsTold: (f) =>
      `${byOperator(f)} confirmed that ${f.tool} (action_id=${f.actionId}) reached its target. Its joints are released. Proceed to the next step.`,
    operatorSays: (f) => `${who(f)} confirmed it reached the target${noted(f)}.`,
    whatFollows: () =>
      "Unlocks its joints. The model is told the motion completed and goes on to its next step from the target pose.",
  },
  partial: {
    state: "confirmed_partial",
    label: "Stopped short / moved part-way",
    status: "stopped",
    releases: (row) => row.resources,
    modelIsTold: (f) =>
      `${byOperator(f)} confirmed that ${f.tool} (action_id=${f.actionId}) stopped part-way: the arm moved but did not reach its target. ` +
      (f.observed
        ? `It is now at ${poseAgainstTargets(f)}, as observed when the operator confirmed. `
        : "The bridge has no pose from the arm for that moment: read get_arm_state. ") +
      "Its joints are released. A re-run starts from where the arm is now, not from where this motion began: plan the next motion from get_arm_state.",
    operatorSays: (f) =>
      `${who(f)} confirmed it stopped part-way${f.observed ? `, at ${poseAgainstTargets(f)}` : ""}${noted(f)}.`,
    whatFollows: () =>
      "Unlocks its joints and records the pose shown now. The model is told the arm stopped short there, not at the target, and that a re-run starts from this pose: the arm may move again from where it is.",
  },
  not_moved: {
    state: "confirmed_not_done",
    label: "Did not move",
    status: "failed",
    releases: (row) => row.resources,
    modelIsTold: (f) =>
      `${byOperator(f)} confirmed that ${f.tool} (action_id=${f.actionId}) did not move the arm` +
      (f.observed ? `; it is at ${poseAgainstTargets(f)}` : "") +
      ". Its joints are released and re-running is allowed; read get_arm_state before planning the next motion.",
    operatorSays: (f) => `${who(f)} confirmed it did not move${noted(f)}.`,
    whatFollows: () =>
      "Unlocks its joints. The model is told nothing moved and that it may run the motion again, from the pose the arm is in.",
  },
};

/** The outcome a confirmed state came from, for rows confirmed before the ledger kept the operator's word. */
export function outcomeOfState(state: ActionRowState): ConfirmOutcome | undefined {
  for (const [outcome, rule] of Object.entries(CONFIRM_OUTCOME_RULES) as [ConfirmOutcome, ConfirmOutcomeRule][])
    if (rule.state === state) return outcome;
  return undefined;
}

/** The facts of a row as recorded (its command's targets, the operator, the observed pose). */
export function factsOfRow(row: ActionRow, override: Partial<ConfirmationFacts> = {}): ConfirmationFacts {
  return {
    tool: row.tool,
    actionId: row.actionId,
    operator: row.operator,
    note: row.operatorNote,
    targets: row.command?.targets ?? {},
    observed: row.observed,
    ...override,
  };
}

const byOperator = (f: ConfirmationFacts): string => (f.operator ? `An operator (${f.operator})` : "An operator");
const who = (f: ConfirmationFacts): string => f.operator ?? "The operator";
const noted = (f: ConfirmationFacts): string => (f.note ? ` ("${f.note}")` : "");

/** `wrist_2=0.450 (target 0.900)` for each axis the motion commanded, as observed. */
function poseAgainstTargets(f: ConfirmationFacts): string {
  const pose = f.observed?.pose ?? {};
  const axes = Object.keys(f.targets).length > 0 ? Object.keys(f.targets) : Object.keys(pose);
  return axes
    .map((axis) => {
      const at = pose[axis];
      const target = f.targets[axis];
      return `${axis}=${at === undefined ? "?" : at.toFixed(3)}${target === undefined ? "" : ` (target ${target.toFixed(3)})`}`;
    })
    .join(", ");
}
