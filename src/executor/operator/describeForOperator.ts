import type { ActionRow } from "../../ledger/ActionRow.js";
import type { ActionRowState } from "../../wire/vocabulary.js";
import { canonicalOutcome } from "../../ledger/ActionRow.js";
import { CONFIRM_OUTCOME_RULES, factsOfRow, outcomeOfState } from "../../ledger/confirmOutcomes.js";

/**
 * What happened to an action, in words for the person at the arm and the
 * history list — not the text written for the model (which tells a model
 * what it may do next). One entry per ledger state, so a new state does not
 * compile until it can be described.
 */
const DESCRIBE: Readonly<Record<ActionRowState, (row: ActionRow) => string>> = {
  started: () => "Sent to the arm; the bridge has not settled it yet.",
  done: (row) => {
    const notes = row.evidence?.notes ?? [];
    const more = notes.length > 0 ? ` ${notes.join("; ")}.` : "";
    if (row.evidence?.record?.state === "voided")
      return `Already at the target; this command never ran (the arm voided it).${more}`;
    if (row.settledBy === "completion") return `Reached the target (the arm reported it).${more}`;
    // By observation the pose is at the target; whether this command moved it there is in the notes.
    return `At the target, seen by watching the arm${row.timedOut ? " after the wait timed out" : ""}.${more}`;
  },
  failed: (row) =>
    `Did not move: ${row.evidence?.notes?.join("; ") || "the arm reports no motion"}. Nothing needs checking.`,
  unknown: (row) =>
    `The bridge could not tell whether the arm moved${row.evidence?.notes?.length ? ` (${row.evidence.notes.join("; ")})` : ""}. ` +
    `${row.resources.join(", ")} stay locked until someone at the arm says what happened.`,
  confirmed_done: (row) => confirmed(row),
  confirmed_partial: (row) => confirmed(row),
  confirmed_not_done: (row) => confirmed(row),
  halted: (row) => {
    const pose = row.evidence?.pose;
    const at = pose
      ? Object.entries(pose)
          .filter(([k]) => row.command === undefined || k in row.command.targets)
          .map(([k, v]) => `${k}=${v.toFixed(3)}`)
          .join(", ")
      : "";
    return `Stopped part-way by a halt the arm confirmed${at ? `, at ${at}` : ""}${row.operator ? ` (halted by ${row.operator})` : ""}. No confirmation needed.`;
  },
};

function confirmed(row: ActionRow): string {
  const outcome = row.operatorOutcome ? canonicalOutcome(row.operatorOutcome) : outcomeOfState(row.state);
  if (!outcome) return `Confirmed by ${row.operator ?? "an operator"}.`;
  return CONFIRM_OUTCOME_RULES[outcome].operatorSays(factsOfRow(row));
}

export function describeForOperator(row: ActionRow): string {
  return DESCRIBE[row.state](row);
}
