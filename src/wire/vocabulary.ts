/**
 * The words the HTTP API shares with the ledger: a row's state, an operator's
 * outcome, who sent a call, who asked for a halt. They stand here, below the
 * ledger, so the wire contract (and the console built from it) needs nothing
 * else of the bridge; the ledger keeps them as its columns' values.
 */

/**
 * Ledger states of an action (see docs/architecture.md for the diagram). Not
 * the arm's own record of an action (ArmActionState, src/transport): here
 * `unknown` means the bridge could not tell what happened and an operator must
 * confirm; there it means the arm has no record of the id.
 */
export const ACTION_STATES = [
  "started",
  "done",
  "failed",
  "unknown",
  "confirmed_done",
  "confirmed_not_done",
  "confirmed_partial",
  "halted",
] as const;
export type ActionRowState = (typeof ACTION_STATES)[number];

/**
 * What an operator can see of an `unknown` action at the arm: it reached the
 * target, it stopped short (moved part-way), or it did not move. The ledger
 * keeps this word; src/ledger/confirmOutcomes.ts says what each one does.
 */
export const CONFIRM_OUTCOMES = ["reached", "partial", "not_moved"] as const;
export type ConfirmOutcome = (typeof CONFIRM_OUTCOMES)[number];
/**
 * Who sent a call: the surface it came through and what the sender says it
 * is. Recorded with every motion in the ledger and carried by every executor
 * event, so an operator can tell which model is moving the arm. It is a
 * label, not an authentication: every client of one bridge shares its token.
 *
 * - `agent`: a Gemini agent loop (`armbridge agent`, embedded or attached
 *   with `--bridge`, and the demo's sessions); `name` is the model, `session`
 *   the run.
 * - `mcp`: an MCP client; `name` is the `clientInfo.name` (and version) from
 *   its `initialize`, `session` the MCP session id (`stdio` over stdio).
 * - `http`: a caller of `POST /v1/calls` that gave no kind of its own; `name`
 *   is its label (`client.name`), else `http`.
 * - `console`: the operator console (its HALT button); `name` the operator.
 * - `cli`: `armbridge call`.
 */
export const CLIENT_KINDS = ["agent", "mcp", "http", "console", "cli"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/**
 * Who asked for a halt: the operator console's HALT button, a model's `stop`
 * call, `armbridge halt`, the HTTP API (POST /v1/halt), or the bridge itself
 * when a required operator's console went quiet mid-motion (operator_presence),
 * or the arm's own safety system stopped it (a UR's protective stop or E-stop).
 */
export const HALT_SOURCES = ["console", "tool", "cli", "http", "presence", "arm"] as const;
export type HaltSource = (typeof HALT_SOURCES)[number];
