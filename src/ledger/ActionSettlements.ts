import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { ActionRow, ConfirmOutcomeInput, Evidence, ObservedPose, SettledBy } from "./ActionRow.js";
import { canonicalOutcome } from "./ActionRow.js";
import { CONFIRM_OUTCOME_RULES } from "./confirmOutcomes.js";
import type { LedgerQueries } from "./LedgerQueries.js";
import { normaliseOperatorName } from "./operatorName.js";

export interface Settlement {
  readonly state: "done" | "failed" | "unknown" | "halted";
  /** Who settled it, when a person did (a halt's operator). */
  readonly operator?: string | undefined;
  readonly timedOut: boolean;
  readonly settledBy: SettledBy;
  readonly message: string;
  readonly evidence?: Evidence | undefined;
}

export interface Confirmation {
  /** What the operator saw; `done` / `not_done` are the older words for `reached` / `not_moved`. */
  readonly outcome: ConfirmOutcomeInput;
  readonly operator: string;
  readonly note?: string | undefined;
  /** The arm's pose as the bridge saw it at that moment (the transport's latest status). */
  readonly observed?: ObservedPose | undefined;
}

/**
 * How a recorded action ends: settled by the bridge (completion, observation,
 * a halt), or confirmed by an operator when it was `unknown`. A row is
 * settled once: a later settlement of a row someone already settled is
 * ignored, theirs kept.
 */
export class ActionSettlements {
  readonly #db: Database.Database;
  readonly #log: Logger;
  readonly #queries: LedgerQueries;
  readonly #stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database, log: Logger, queries: LedgerQueries) {
    this.#db = db;
    this.#log = log;
    this.#queries = queries;
    this.#stmts = prepare(db);
  }

  /**
   * Settles a started (or unknown) action by completion or observation.
   *
   * Written without waiting for fsync (synchronous=NORMAL for this one
   * statement; WAL keeps it ordered before any later durable write): a
   * settlement lost to power failure leaves the row `started`, and a
   * `started` row is reconciled by observation at the next start — never
   * re-executed. The intent, which nothing else could recover, is always
   * fsynced.
   */
  settle(actionId: string, s: Settlement, now: number): ActionRow {
    this.#db.pragma("synchronous = NORMAL");
    let info: Database.RunResult;
    try {
      info = this.#stmts.settle.run({
        action_id: actionId,
        state: s.state,
        timed_out: s.timedOut ? 1 : 0,
        settled_by: s.settledBy,
        message: s.message,
        evidence_json: s.evidence === undefined ? null : JSON.stringify(s.evidence),
        operator: s.operator ?? null,
        now,
      });
    } finally {
      this.#db.pragma("synchronous = FULL");
    }
    if (info.changes === 0) {
      const row = this.#queries.get(actionId);
      if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
      // Already settled by someone else (an operator, or a late observation): keep theirs.
      this.#log.warn(
        { action_id: actionId, state: row.state, attempted: s.state },
        "settle ignored: action already settled",
      );
      return row;
    }
    this.#log.info(
      { action_id: actionId, state: s.state, settled_by: s.settledBy, timed_out: s.timedOut },
      "action settled",
    );
    return this.#queries.mustGet(actionId);
  }

  /**
   * An operator's word on an `unknown` action. `message`, when given, replaces
   * the row's message in the same write, so the row never says "unknown" in
   * words while its state says confirmed (the executor derives it from the state).
   */
  confirm(actionId: string, c: Confirmation, now: number, message?: string): ActionRow {
    const operator = normaliseOperatorName(c.operator);
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_OPERATOR_REQUIRED", { actionId });
    const row = this.#queries.get(actionId);
    if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
    if (row.state !== "unknown")
      throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_UNKNOWN", { actionId, state: row.state });
    const outcome = canonicalOutcome(c.outcome);
    const state = CONFIRM_OUTCOME_RULES[outcome].state;
    const info = this.#stmts.confirm.run({
      action_id: actionId,
      state,
      operator,
      note: c.note ?? null,
      message: message ?? null,
      outcome,
      observed_pose_json: c.observed ? JSON.stringify(c.observed.pose) : null,
      observed_at: c.observed?.stampMs ?? null,
      now,
    });
    if (info.changes === 0) {
      const again = this.#queries.mustGet(actionId);
      throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_UNKNOWN", { actionId, state: again.state });
    }
    this.#log.info({ action_id: actionId, state, outcome, operator }, "action confirmed by operator");
    return this.#queries.mustGet(actionId);
  }
}

function prepare(db: Database.Database) {
  return {
    settle: db.prepare(
      `UPDATE actions SET state = @state, timed_out = @timed_out, settled_by = @settled_by, message = @message,
         evidence_json = COALESCE(@evidence_json, evidence_json), operator = COALESCE(@operator, operator), settled_at = @now, updated_at = @now
       WHERE action_id = @action_id AND (state = 'started' OR (state = 'unknown' AND @state != 'unknown'))`,
    ),
    confirm: db.prepare(
      `UPDATE actions SET state = @state, settled_by = 'operator', operator = @operator, operator_note = @note,
         message = COALESCE(@message, message), operator_outcome = @outcome, observed_pose_json = @observed_pose_json,
         observed_at = @observed_at, confirmed_at = @now, updated_at = @now
       WHERE action_id = @action_id AND state = 'unknown'`,
    ),
  };
}
