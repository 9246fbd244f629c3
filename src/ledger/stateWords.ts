import { ACTION_STATES, type ActionRowState } from "./ActionRow.js";

/**
 * The words every surface uses for a ledger state — the CLI's tables and
 * `--state`, the HTTP `?state=` filter, the console's badges and history
 * filter — so that the words an operator types are the ones they read.
 * An operator's confirmation is named after the outcome they gave
 * (`reached`, `partial`, `not_moved`, the words of `confirm --outcome`):
 * `confirmed_reached`, not the ledger's older `confirmed_done`. The ledger's
 * own names stay on the wire (`state` in an action view) and stay accepted
 * wherever a state is typed.
 */
export const STATE_WORDS: Readonly<Record<ActionRowState, { readonly word: string; readonly means: string }>> = {
  started: { word: "started", means: "sent to the arm; not settled yet" },
  done: { word: "done", means: "reached its target" },
  failed: { word: "failed", means: "nothing moved" },
  unknown: { word: "unknown", means: "the bridge could not tell what happened; waits for an operator" },
  confirmed_done: { word: "confirmed_reached", means: "an operator confirmed it reached its target" },
  confirmed_partial: { word: "confirmed_partial", means: "an operator confirmed it stopped part-way" },
  confirmed_not_done: { word: "confirmed_not_moved", means: "an operator confirmed it did not move" },
  halted: { word: "halted", means: "a halt stopped it part-way, at the pose the arm reported" },
};

/** Every word a state may be typed as: the shared word first, then the ledger's name where it differs. */
export const STATE_INPUTS: readonly string[] = [...new Set(ACTION_STATES.flatMap((s) => [STATE_WORDS[s].word, s]))];

/** The ledger state a typed word names (a shared word or the ledger's own name), or undefined. */
export function stateOfWord(word: string): ActionRowState | undefined {
  for (const s of ACTION_STATES) if (s === word || STATE_WORDS[s].word === word) return s;
  return undefined;
}
