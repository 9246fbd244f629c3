import type { ActionRowState } from "./wire.js";

/**
 * The words every surface uses for a ledger state (the CLI's tables and
 * --state, this console's badges and history filter): the server's
 * src/ledger/stateWords.ts, copied because the console takes only types from
 * the server; test/console/stateWords.test.ts fails when the two differ.
 */
export const STATE_WORDS: Readonly<Record<ActionRowState, string>> = {
  started: "started",
  done: "done",
  failed: "failed",
  unknown: "unknown",
  confirmed_done: "confirmed_reached",
  confirmed_partial: "confirmed_partial",
  confirmed_not_done: "confirmed_not_moved",
  halted: "halted",
};

/** The badge text: the shared word, in capitals, spaced. */
export function stateLabel(state: ActionRowState): string {
  return STATE_WORDS[state].replace(/_/g, " ").toUpperCase();
}
