import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { ApprovalRecord } from "./ActionRow.js";
import type { CallClient } from "./CallClient.js";
import { classifySqliteError } from "./classifySqliteError.js";
import type { LedgerFileWatch } from "./LedgerFileWatch.js";
import type { LedgerQueries } from "./LedgerQueries.js";
import type { RecordedCommand } from "./RecordedCommand.js";

export interface NewIntent {
  readonly actionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly argsHash: string;
  readonly resources: readonly string[];
  readonly command: RecordedCommand;
  /** The arm's incarnation when the command was sent (Transport.armIncarnation). */
  readonly armIncarnation?: string | undefined;
  /** Who sent the call. */
  readonly client?: CallClient | undefined;
  /** The operator's approval the motion waited for (config `approval`); absent when none was asked. */
  readonly approval?: ApprovalRecord | undefined;
}

/**
 * Writes intents: a row in state `started`, fsynced before the command may
 * leave. One at a time (`record`) or with group commit (`recordDurably`):
 * intents recorded in the same tick share one transaction, and so one fsync.
 * A call id that already has an action is ARMB_ERR_CALL_ID_REUSED; a ledger
 * file lost under the bridge refuses every intent.
 */
export class IntentWriter {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #log: Logger;
  readonly #file: LedgerFileWatch;
  readonly #queries: LedgerQueries;
  readonly #insertStmt: Database.Statement;
  /** Intents waiting for the next group commit. */
  #pending: { intent: NewIntent; now: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  #flushScheduled = false;

  constructor(d: {
    readonly db: Database.Database;
    readonly path: string;
    readonly log: Logger;
    readonly file: LedgerFileWatch;
    readonly queries: LedgerQueries;
  }) {
    this.#db = d.db;
    this.#path = d.path;
    this.#log = d.log;
    this.#file = d.file;
    this.#queries = d.queries;
    this.#insertStmt = d.db.prepare(
      `INSERT INTO actions (action_id, call_id, tool, args_json, args_hash, resources_json, command_json, arm_incarnation, client_kind, client_name, client_session, approval_id, approved_by, approved_at, approval_note, state, created_at, updated_at)
       VALUES (@action_id, @call_id, @tool, @args_json, @args_hash, @resources_json, @command_json, @arm_incarnation, @client_kind, @client_name, @client_session, @approval_id, @approved_by, @approved_at, @approval_note, @state, @created_at, @updated_at)`,
    );
  }

  /** One intent in its own transaction, durable when this returns. */
  record(intent: NewIntent, now: number): void {
    this.#file.assertIntact();
    this.#db.transaction(() => this.#insert(intent, now))();
    this.#logRecorded(intent);
  }

  /** Queued for the next group commit; resolves once its row is durable, so no command can leave before its intent is on disk. */
  recordDurably(intent: NewIntent, now: number): Promise<void> {
    const loss = this.#file.check();
    if (loss) return Promise.reject(loss.error);
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ intent, now, resolve, reject });
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    // Checked again at the commit: the file may have gone since the intents were queued.
    const loss = this.#file.check();
    if (loss) {
      for (const p of batch) p.reject(loss.error);
      return;
    }
    const outcomes: ({ ok: true } | { ok: false; error: unknown })[] = [];
    try {
      this.#db.transaction(() => {
        for (const p of batch) {
          try {
            // A savepoint per intent when there are several: one refused call id must not undo the others.
            if (batch.length === 1) this.#insert(p.intent, p.now);
            else this.#db.transaction(() => this.#insert(p.intent, p.now))();
            outcomes.push({ ok: true });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const p of batch) p.reject(classifySqliteError(error, this.#path));
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (!o || !o.ok) {
        p.reject(o?.error);
        return;
      }
      this.#logRecorded(p.intent);
      p.resolve();
    });
  }

  #logRecorded(intent: NewIntent): void {
    this.#log.info(
      { action_id: intent.actionId, call_id: intent.callId, tool: intent.tool, resources: intent.resources },
      "intent recorded",
    );
  }

  #insert(intent: NewIntent, now: number): void {
    try {
      this.#insertStmt.run({
        action_id: intent.actionId,
        call_id: intent.callId,
        tool: intent.tool,
        args_json: JSON.stringify(intent.args),
        args_hash: intent.argsHash,
        resources_json: JSON.stringify(intent.resources),
        command_json: JSON.stringify(intent.command),
        arm_incarnation: intent.armIncarnation ?? null,
        client_kind: intent.client?.kind ?? null,
        client_name: intent.client?.name ?? null,
        client_session: intent.client?.session ?? null,
        approval_id: intent.approval?.approvalId ?? null,
        approved_by: intent.approval?.operator ?? null,
        approved_at: intent.approval?.at ?? null,
        approval_note: intent.approval?.note ?? null,
        state: "started",
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      const existing = this.#queries.findByCallId(intent.callId);
      if (existing) {
        throw new ArmbridgeError(
          "ARMB_ERR_CALL_ID_REUSED",
          { callId: intent.callId, tool: existing.tool, actionId: existing.actionId },
          { cause: error },
        );
      }
      throw classifySqliteError(error, this.#path);
    }
  }
}
