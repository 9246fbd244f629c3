import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { ArmbridgeError, isArmbridgeError } from "../errors.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { ActionRow, ActionRowState, ConfirmOutcome, ConfirmOutcomeInput, Evidence, ObservedPose, SettledBy } from "./ActionRow.js";
import { canonicalOutcome } from "./ActionRow.js";
import { isClientKind, normalizeClient, type CallClient, type ClientKind } from "./CallClient.js";
import type { ArmBinding } from "./ArmBinding.js";
import type { HaltRow, HaltSource } from "./HaltRow.js";
import { fileChange, fileIdentityOf, type FileIdentity } from "./FileIdentity.js";
import { CONFIRM_OUTCOME_RULES } from "./confirmOutcomes.js";
import { FRESH_SCHEMA, migrateLedger, SCHEMA_VERSION } from "./ledgerSchema.js";
import { normaliseOperatorName } from "./operatorName.js";
import { parseRecordedCommand, type RecordedCommand } from "./RecordedCommand.js";
import { describeHolder, removeOwnerFile, thisProcessAsOwner, writeOwnerFile } from "./LedgerOwner.js";

const APP_ID = "armbridge-intent-ledger";
const SQLITE_HEADER = "SQLite format 3\u0000";
/** How long a second opener waits for the lock before it says who holds it (a holder just killed lets go at once). */
const DEFAULT_LOCK_WAIT_MS = 1000;


interface RawRow {
  action_id: string;
  call_id: string;
  tool: string;
  args_json: string;
  args_hash: string;
  resources_json: string;
  command_json: string | null;
  arm_incarnation: string | null;
  state: string;
  timed_out: number;
  settled_by: string | null;
  message: string | null;
  evidence_json: string | null;
  operator: string | null;
  operator_note: string | null;
  created_at: number;
  settled_at: number | null;
  confirmed_at: number | null;
  updated_at: number;
  operator_outcome: string | null;
  observed_pose_json: string | null;
  observed_at: number | null;
  client_kind: string | null;
  client_name: string | null;
  client_session: string | null;
}

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
}

/** Which client's rows to list: every field given must match exactly. */
export interface ClientFilter {
  readonly kind?: ClientKind | undefined;
  readonly name?: string | undefined;
  readonly session?: string | undefined;
}

/** One client as the ledger has seen it: how many motions it sent, and when the last one was recorded. */
export interface ClientSeen {
  readonly client: CallClient;
  readonly actions: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

export interface Settlement {
  readonly state: "done" | "failed" | "unknown" | "halted";
  /** Who settled it, when a person did (a halt's operator). */
  readonly operator?: string | undefined;
  readonly timedOut: boolean;
  readonly settledBy: SettledBy;
  readonly message: string;
  readonly evidence?: Evidence | undefined;
}

/** Where a page of `list` ended: its last row's (created_at, action_id), unique per row. */
export interface LedgerCursor {
  readonly createdAt: number;
  readonly actionId: string;
}

/** The ledger file was unlinked or replaced under the open database: nothing written now would survive a restart. */
export interface LedgerLoss {
  readonly error: ArmbridgeError;
  /** Epoch ms it was noticed. */
  readonly detectedAt: number;
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
 * The durable record of every motion: written *before* the command leaves,
 * so a crash can never hide a motion that may have happened. SQLite in WAL
 * mode with synchronous=FULL: a committed intent survives power loss.
 *
 * A file that is not ours (or is damaged) is refused with a coded error and
 * left untouched — silently starting a new ledger would forget unresolved
 * motions and lift their quarantine.
 *
 * One process at a time: the file is opened with SQLite's exclusive locking
 * mode, an OS file lock held for the life of the connection and released by
 * the kernel when the process dies however it dies, so a killed bridge never
 * blocks its successor. A second opener gets ARMB_ERR_LEDGER_LOCKED naming the
 * holder from `<ledger>.owner.json`. While open, the file is watched (dev and
 * inode, at every intent and on `checkFile()`): a ledger deleted or replaced
 * under us refuses new intents with ARMB_ERR_LEDGER_LOST.
 */
export class IntentLedger {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #log: Logger;
  readonly #stmts: ReturnType<typeof prepare>;
  /** Intents waiting for the next group commit. */
  #pending: { intent: NewIntent; now: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  #flushScheduled = false;
  /** The database file and its WAL as opened; undefined for ":memory:". */
  readonly #files: { readonly main: FileIdentity; readonly wal: FileIdentity | undefined } | undefined;
  #lost: LedgerLoss | undefined;

  private constructor(path: string, db: Database.Database, log: Logger) {
    this.path = path;
    this.#db = db;
    this.#log = log;
    this.#stmts = prepare(db);
    const main = path === ":memory:" ? undefined : fileIdentityOf(path);
    this.#files = main && { main, wal: fileIdentityOf(`${path}-wal`) };
  }

  /** Opens (or creates) the ledger at `path`; ":memory:" for a throwaway one. */
  static open(path: string, options: { logger?: Logger; lockWaitMs?: number } = {}): IntentLedger {
    const log = (options.logger ?? silentLogger).child({ component: "ledger" });
    const onDisk = path !== ":memory:";
    if (onDisk) checkFileHeader(path);
    let db: Database.Database;
    try {
      if (onDisk) mkdirSync(dirname(path), { recursive: true });
      db = new Database(path, { timeout: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS });
    } catch (error) {
      throw new ArmbridgeError("ARMB_ERR_LEDGER_OPEN", { path, reason: (error as Error).message }, { cause: error });
    }
    try {
      if (onDisk) takeExclusiveLock(db, path);
      initialise(db, path, log);
      // Again in WAL mode: the lock then covers the WAL too, and is held from here to close().
      if (onDisk) takeExclusiveLock(db, path);
    } catch (error) {
      db.close();
      if (isArmbridgeError(error)) throw error;
      throw classifySqliteError(error, path);
    }
    if (onDisk) writeOwnerFile(path, thisProcessAsOwner());
    log.info({ path }, "intent ledger open");
    return new IntentLedger(path, db, log);
  }

  close(): void {
    if (!this.#db.open) return;
    this.#db.close();
    if (this.path !== ":memory:") removeOwnerFile(this.path);
  }

  /**
   * Whether the file this ledger writes is still the one at `path` (and its
   * WAL the one beside it). Once lost, always lost: writes to an unlinked
   * file succeed and vanish at the next start, so nothing may rely on them.
   */
  checkFile(now = Date.now()): LedgerLoss | undefined {
    if (this.#lost || !this.#files) return this.#lost;
    const main = fileChange(this.path, this.#files.main);
    const wal = main === undefined && this.#files.wal ? fileChange(`${this.path}-wal`, this.#files.wal) : undefined;
    const how = main ? `${main}` : wal ? `left without its write-ahead log (${this.path}-wal ${wal})` : undefined;
    if (how === undefined) return undefined;
    this.#lost = { error: new ArmbridgeError("ARMB_ERR_LEDGER_LOST", { path: this.path, how }), detectedAt: now };
    this.#log.error({ path: this.path, how, code: "ARMB_ERR_LEDGER_LOST" }, "the intent ledger file was deleted or replaced under the running bridge: no motion is accepted from now on");
    return this.#lost;
  }

  /** The loss noticed so far, without checking again. */
  get lost(): LedgerLoss | undefined {
    return this.#lost;
  }

  #assertFileIntact(): void {
    const loss = this.checkFile();
    if (loss) throw loss.error;
  }

  /** The arm this ledger's rows belong to, once bound. */
  armBinding(): ArmBinding | undefined {
    const get = (key: string): string | undefined => (this.#stmts.metaGet.get(key) as { value: string } | undefined)?.value;
    const name = get("arm_name");
    if (name === undefined) return undefined;
    const identity = get("arm_identity");
    return { name, identity: identity === "" ? undefined : identity, boundAt: Number(get("arm_bound_at") ?? 0) };
  }

  /** Records (or, when an operator adopts the ledger, replaces) the arm its rows belong to. */
  bindArm(binding: ArmBinding): void {
    this.#db.transaction(() => {
      this.#stmts.metaPut.run("arm_name", binding.name);
      this.#stmts.metaPut.run("arm_identity", binding.identity ?? "");
      this.#stmts.metaPut.run("arm_bound_at", String(binding.boundAt));
    })();
    this.#log.info({ arm: binding.name, identity: binding.identity }, "ledger bound to arm");
  }

  /**
   * Records that a motion is about to be sent, durably (fsync) before it
   * returns. Throws ARMB_ERR_CALL_ID_REUSED when the call id already has an
   * action (the executor checks first; this is the backstop for two
   * processes sharing one file).
   */
  recordIntent(intent: NewIntent, now = Date.now()): ActionRow {
    this.#assertFileIntact();
    this.#db.transaction(() => this.#insert(intent, now))();
    this.#log.info({ action_id: intent.actionId, call_id: intent.callId, tool: intent.tool, resources: intent.resources }, "intent recorded");
    return this.mustGet(intent.actionId);
  }

  /**
   * The same as `recordIntent`, with group commit: intents recorded in the
   * same tick (one model turn's parallel calls) share one transaction and so
   * one fsync. Each still resolves only once its row is durable, so no
   * command can leave before its intent is on disk.
   */
  recordIntentDurably(intent: NewIntent, now = Date.now()): Promise<void> {
    const loss = this.checkFile();
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
    const loss = this.checkFile();
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
      for (const p of batch) p.reject(classifySqliteError(error, this.path));
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (!o || !o.ok) {
        p.reject(o?.error);
        return;
      }
      this.#log.info({ action_id: p.intent.actionId, call_id: p.intent.callId, tool: p.intent.tool, resources: p.intent.resources }, "intent recorded");
      p.resolve();
    });
  }

  #insert(intent: NewIntent, now: number): void {
    try {
      this.#stmts.insert.run({
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
        state: "started",
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      const existing = this.findByCallId(intent.callId);
      if (existing) {
        throw new ArmbridgeError("ARMB_ERR_CALL_ID_REUSED", { callId: intent.callId, tool: existing.tool, actionId: existing.actionId }, { cause: error });
      }
      throw classifySqliteError(error, this.path);
    }
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
  settle(actionId: string, s: Settlement, now = Date.now()): ActionRow {
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
      const row = this.get(actionId);
      if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
      // Already settled by someone else (an operator, or a late observation): keep theirs.
      this.#log.warn({ action_id: actionId, state: row.state, attempted: s.state }, "settle ignored: action already settled");
      return row;
    }
    this.#log.info({ action_id: actionId, state: s.state, settled_by: s.settledBy, timed_out: s.timedOut }, "action settled");
    return this.mustGet(actionId);
  }

  /**
   * An operator's word on an `unknown` action. `message`, when given, replaces
   * the row's message in the same write, so the row never says "unknown" in
   * words while its state says confirmed (the executor derives it from the state).
   */
  confirm(actionId: string, c: Confirmation, now = Date.now(), message?: string): ActionRow {
    const operator = normaliseOperatorName(c.operator);
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_OPERATOR_REQUIRED", { actionId });
    const row = this.get(actionId);
    if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
    if (row.state !== "unknown") throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_UNKNOWN", { actionId, state: row.state });
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
      const again = this.mustGet(actionId);
      throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_UNKNOWN", { actionId, state: again.state });
    }
    this.#log.info({ action_id: actionId, state, outcome, operator }, "action confirmed by operator");
    return this.mustGet(actionId);
  }

  /** Records a halt (the latch is on from here until released); written durably. */
  recordHalt(h: Pick<HaltRow, "haltId" | "haltedAt" | "source" | "operator" | "callId" | "client" | "axes" | "note">): HaltRow {
    const client = h.client ? normalizeClient(h.client) : undefined;
    this.#stmts.haltInsert.run({
      client_kind: client?.kind ?? null,
      client_name: client?.name ?? null,
      client_session: client?.session ?? null,
      halt_id: h.haltId,
      halted_at: h.haltedAt,
      source: h.source,
      operator: h.operator ?? null,
      call_id: h.callId ?? null,
      axes_json: h.axes ? JSON.stringify(h.axes) : null,
      note: h.note ?? null,
    });
    this.#log.warn({ halt_id: h.haltId, source: h.source, operator: h.operator, axes: h.axes }, "halt recorded: every motion is refused until an operator releases it");
    return this.mustGetHalt(h.haltId);
  }

  /** What the arm said to a halt: confirmed (with the pose it reported) or not (with why). */
  answerHalt(haltId: string, a: { readonly confirmed: boolean; readonly detail?: string | undefined; readonly pose?: Readonly<Record<string, number>> | undefined }, now = Date.now()): HaltRow {
    this.#stmts.haltAnswer.run({ halt_id: haltId, confirmed: a.confirmed ? 1 : 0, detail: a.detail ?? null, pose_json: a.pose ? JSON.stringify(a.pose) : null, now });
    return this.mustGetHalt(haltId);
  }

  /** Releases every open halt in one write; returns them. Throws ARMB_ERR_NOT_HALTED when none is open. */
  releaseHalts(r: { readonly operator: string; readonly note?: string | undefined }, now = Date.now()): HaltRow[] {
    const open = this.openHalts();
    if (open.length === 0) throw new ArmbridgeError("ARMB_ERR_NOT_HALTED");
    this.#stmts.haltRelease.run({ operator: r.operator, note: r.note ?? null, now });
    this.#log.warn({ halts: open.map((h) => h.haltId), operator: r.operator }, "halt released by an operator: motion is accepted again");
    return open.map((h) => this.mustGetHalt(h.haltId));
  }

  /** Halts not released yet, oldest first: the latch is on while there is one. */
  openHalts(): HaltRow[] {
    return (this.#stmts.haltsOpen.all() as RawHalt[]).map(toHalt);
  }

  /** The newest halts, newest first (released or not). */
  recentHalts(limit = 20): HaltRow[] {
    return (this.#stmts.haltsRecent.all(Math.max(1, Math.min(limit, 1000))) as RawHalt[]).map(toHalt);
  }

  mustGetHalt(haltId: string): HaltRow {
    const raw = this.#stmts.haltById.get(haltId) as RawHalt | undefined;
    if (!raw) throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: `no halt ${haltId} in the ledger` });
    return toHalt(raw);
  }

  get(actionId: string): ActionRow | undefined {
    const raw = this.#stmts.byAction.get(actionId) as RawRow | undefined;
    return raw && toRow(raw);
  }

  mustGet(actionId: string): ActionRow {
    const row = this.get(actionId);
    if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
    return row;
  }

  findByCallId(callId: string): ActionRow | undefined {
    const raw = this.#stmts.byCall.get(callId) as RawRow | undefined;
    return raw && toRow(raw);
  }

  /**
   * Newest first, ordered by (created_at, action_id) — a total order, so
   * `after` (the last row of the previous page) pages without loss even when
   * many rows share a millisecond. `before` (epoch ms) is the older, coarser
   * filter: rows created at or after it are left out.
   */
  list(
    filter: { state?: ActionRowState | undefined; client?: ClientFilter | undefined; limit?: number | undefined; before?: number | undefined; after?: LedgerCursor | undefined } = {},
  ): ActionRow[] {
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 1000));
    const rows = this.#stmts.list.all({
      state: filter.state ?? null,
      client_kind: filter.client?.kind ?? null,
      client_name: filter.client?.name ?? null,
      client_session: filter.client?.session ?? null,
      before: filter.before ?? null,
      after_at: filter.after?.createdAt ?? null,
      after_id: filter.after?.actionId ?? null,
      limit,
    }) as RawRow[];
    return rows.map(toRow);
  }

  inState(state: ActionRowState): ActionRow[] {
    return (this.#stmts.inState.all(state) as RawRow[]).map(toRow);
  }

  /** Every client that sent a motion, the most recent first (the history's filter). Rows without a client are left out. */
  clients(limit = 200): ClientSeen[] {
    const raws = this.#stmts.clients.all(Math.max(1, Math.min(limit, 1000))) as { client_kind: string; client_name: string; client_session: string | null; n: number; first_at: number; last_at: number }[];
    return raws.flatMap((r) => {
      const client = clientOf(r);
      return client ? [{ client, actions: r.n, firstAt: r.first_at, lastAt: r.last_at }] : [];
    });
  }
}

export type { ActionRow, ActionRowState, ConfirmOutcome, Evidence, SettledBy } from "./ActionRow.js";

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO actions (action_id, call_id, tool, args_json, args_hash, resources_json, command_json, arm_incarnation, client_kind, client_name, client_session, state, created_at, updated_at)
       VALUES (@action_id, @call_id, @tool, @args_json, @args_hash, @resources_json, @command_json, @arm_incarnation, @client_kind, @client_name, @client_session, @state, @created_at, @updated_at)`,
    ),
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
    byAction: db.prepare(`SELECT * FROM actions WHERE action_id = ?`),
    haltInsert: db.prepare(
      `INSERT INTO halts (halt_id, halted_at, source, operator, call_id, client_kind, client_name, client_session, axes_json, note)
       VALUES (@halt_id, @halted_at, @source, @operator, @call_id, @client_kind, @client_name, @client_session, @axes_json, @note)`,
    ),
    haltAnswer: db.prepare(`UPDATE halts SET confirmed = @confirmed, detail = @detail, pose_json = @pose_json, answered_at = @now WHERE halt_id = @halt_id`),
    haltRelease: db.prepare(`UPDATE halts SET released_at = @now, released_by = @operator, release_note = @note WHERE released_at IS NULL`),
    haltsOpen: db.prepare(`SELECT * FROM halts WHERE released_at IS NULL ORDER BY halted_at, halt_id`),
    haltsRecent: db.prepare(`SELECT * FROM halts ORDER BY halted_at DESC, halt_id DESC LIMIT ?`),
    haltById: db.prepare(`SELECT * FROM halts WHERE halt_id = ?`),
    metaGet: db.prepare(`SELECT value FROM meta WHERE key = ?`),
    metaPut: db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    byCall: db.prepare(`SELECT * FROM actions WHERE call_id = ?`),
    inState: db.prepare(`SELECT * FROM actions WHERE state = ? ORDER BY created_at, action_id`),
    list: db.prepare(
      `SELECT * FROM actions WHERE (@state IS NULL OR state = @state) AND (@before IS NULL OR created_at < @before)
         AND (@client_kind IS NULL OR client_kind = @client_kind) AND (@client_name IS NULL OR client_name = @client_name)
         AND (@client_session IS NULL OR client_session = @client_session)
         AND (@after_at IS NULL OR created_at < @after_at OR (created_at = @after_at AND action_id < @after_id))
       ORDER BY created_at DESC, action_id DESC LIMIT @limit`,
    ),
    clients: db.prepare(
      `SELECT client_kind, client_name, client_session, COUNT(*) AS n, MIN(created_at) AS first_at, MAX(created_at) AS last_at FROM actions
       WHERE client_kind IS NOT NULL AND client_name IS NOT NULL
       GROUP BY client_kind, client_name, client_session ORDER BY last_at DESC LIMIT ?`,
    ),
  };
}

interface RawHalt {
  halt_id: string;
  halted_at: number;
  source: string;
  operator: string | null;
  call_id: string | null;
  client_kind: string | null;
  client_name: string | null;
  client_session: string | null;
  axes_json: string | null;
  note: string | null;
  confirmed: number | null;
  detail: string | null;
  pose_json: string | null;
  answered_at: number | null;
  released_at: number | null;
  released_by: string | null;
  release_note: string | null;
}

function toHalt(r: RawHalt): HaltRow {
  return {
    haltId: r.halt_id,
    haltedAt: r.halted_at,
    source: r.source as HaltSource,
    operator: r.operator ?? undefined,
    callId: r.call_id ?? undefined,
    ...(isClientKind(r.client_kind) && r.client_name !== null ? { client: r.client_session === null ? { kind: r.client_kind, name: r.client_name } : { kind: r.client_kind, name: r.client_name, session: r.client_session } } : {}),
    axes: r.axes_json === null ? undefined : (JSON.parse(r.axes_json) as string[]),
    note: r.note ?? undefined,
    confirmed: r.confirmed === null ? undefined : r.confirmed === 1,
    detail: r.detail ?? undefined,
    pose: r.pose_json === null ? undefined : (JSON.parse(r.pose_json) as Record<string, number>),
    answeredAt: r.answered_at ?? undefined,
    releasedAt: r.released_at ?? undefined,
    releasedBy: r.released_by ?? undefined,
    releaseNote: r.release_note ?? undefined,
  };
}

function toRow(r: RawRow): ActionRow {
  return {
    actionId: r.action_id,
    callId: r.call_id,
    tool: r.tool,
    args: JSON.parse(r.args_json) as unknown,
    argsHash: r.args_hash,
    resources: JSON.parse(r.resources_json) as string[],
    command: r.command_json === null ? undefined : parseRecordedCommand(JSON.parse(r.command_json)),
    armIncarnation: r.arm_incarnation ?? undefined,
    client: clientOf(r),
    state: r.state as ActionRowState,
    timedOut: r.timed_out === 1,
    settledBy: (r.settled_by ?? "none") as SettledBy,
    message: r.message ?? undefined,
    evidence: r.evidence_json === null ? undefined : (JSON.parse(r.evidence_json) as Evidence),
    operator: r.operator ?? undefined,
    operatorNote: r.operator_note ?? undefined,
    operatorOutcome: (r.operator_outcome ?? undefined) as ConfirmOutcome | undefined,
    observed:
      r.observed_pose_json === null ? undefined : { pose: JSON.parse(r.observed_pose_json) as Record<string, number>, stampMs: r.observed_at ?? 0 },
    createdAt: r.created_at,
    settledAt: r.settled_at ?? undefined,
    confirmedAt: r.confirmed_at ?? undefined,
    updatedAt: r.updated_at,
  };
}

/** A stored client, or undefined for rows without one (and a kind this version does not know, written by a newer one). */
function clientOf(r: Pick<RawRow, "client_kind" | "client_name" | "client_session">): CallClient | undefined {
  if (r.client_kind === null || r.client_name === null || !isClientKind(r.client_kind)) return undefined;
  return normalizeClient({ kind: r.client_kind, name: r.client_name, session: r.client_session ?? undefined });
}

/**
 * Takes SQLite's exclusive lock and keeps it: in EXCLUSIVE locking mode the
 * lock won by the first write transaction is never released until the
 * connection closes (https://www.sqlite.org/pragma.html#pragma_locking_mode).
 * Set before the first access, it also keeps the WAL index in heap memory,
 * with no -shm file other processes could map
 * (https://www.sqlite.org/wal.html#noshm). The lock is a POSIX advisory lock
 * on the file, which the kernel drops when the process exits, SIGKILL included.
 */
function takeExclusiveLock(db: Database.Database, path: string): void {
  db.pragma("locking_mode = EXCLUSIVE");
  try {
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
      const h = describeHolder(path);
      throw new ArmbridgeError("ARMB_ERR_LEDGER_LOCKED", { path, holder: h.holder, pid: h.pid, since: h.since, host: h.host }, { cause: error });
    }
    throw error;
  }
}

/** Refuses files that are not SQLite at all, before SQLite gets a chance to write to them. */
function checkFileHeader(path: string): void {
  if (!existsSync(path)) return;
  const size = statSync(path).size;
  if (size === 0) return;
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    if (n < 16 || buf.toString("latin1") !== SQLITE_HEADER) {
      throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", { path, reason: "the file is not a SQLite database" });
    }
  } finally {
    closeSync(fd);
  }
}

function initialise(db: Database.Database, path: string, log: Logger): void {
  // quick_check reads every page: a damaged file fails here, not mid-motion.
  const check = db.pragma("quick_check", { simple: true });
  if (check !== "ok") throw new ArmbridgeError("ARMB_ERR_LEDGER_CORRUPT", { path, reason: String(check) });
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((t) => t.name);
  if (tables.length === 0) {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.transaction(() => {
      db.exec(FRESH_SCHEMA);
      const put = db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?)`);
      put.run("app", APP_ID);
      put.run("schema_version", String(SCHEMA_VERSION));
      put.run("created_at", String(Date.now()));
    })();
    return;
  }
  if (!tables.includes("meta") || !tables.includes("actions")) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", { path, reason: `it has tables ${tables.join(", ")}` });
  }
  const meta = new Map((db.prepare(`SELECT key, value FROM meta`).all() as { key: string; value: string }[]).map((m) => [m.key, m.value]));
  if (meta.get("app") !== APP_ID) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", { path, reason: `its meta.app is ${JSON.stringify(meta.get("app") ?? null)}` });
  }
  const version = meta.get("schema_version");
  const found = version === undefined || !/^[1-9][0-9]*$/.test(version) ? Number.NaN : Number(version);
  // Older versions are upgraded; a newer one was written by a newer armbridge, whose rows this one may misread.
  if (!(found >= 1 && found <= SCHEMA_VERSION)) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_VERSION", { path, found: version ?? "none", expected: SCHEMA_VERSION });
  }
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  const steps = migrateLedger(db, found);
  if (steps.length > 0) log.warn({ path, from: found, to: SCHEMA_VERSION }, "intent ledger schema upgraded");
}

function classifySqliteError(error: unknown, path: string): ArmbridgeError {
  const code = (error as { code?: unknown }).code;
  const reason = (error as Error).message ?? String(error);
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") {
    return new ArmbridgeError("ARMB_ERR_LEDGER_CORRUPT", { path, reason }, { cause: error });
  }
  return new ArmbridgeError("ARMB_ERR_LEDGER_OPEN", { path, reason }, { cause: error });
}
