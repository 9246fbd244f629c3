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

/**
 * Words for what the model was told rather than what the ledger stores: a
 * motion a halt cut short (`halted`) and one an operator confirmed stopped
 * part-way (`confirmed_partial`) both reach the model as status `stopped`, so
 * an operator who reads "stopped" in a transcript can type it.
 */
export const RESULT_WORDS: Readonly<Record<string, readonly ActionRowState[]>> = {
  stopped: ["halted", "confirmed_partial"],
};

/** Every word a state may be typed as: the shared word first, then the ledger's name where it differs, then the model's words. */
export const STATE_INPUTS: readonly string[] = [
  ...new Set([...ACTION_STATES.flatMap((s) => [STATE_WORDS[s].word, s]), ...Object.keys(RESULT_WORDS)]),
];

/** The ledger states a typed word names (a shared word, the ledger's own name, or a status the model was told), or undefined. */
export function statesOfWord(word: string): readonly ActionRowState[] | undefined {
  for (const s of ACTION_STATES) if (s === word || STATE_WORDS[s].word === word) return [s];
  return Object.hasOwn(RESULT_WORDS, word) ? RESULT_WORDS[word] : undefined;
}
import { ACTION_STATES, type ActionRowState } from "../wire/vocabulary.js";
