import type { ActionRowState } from "../wire/vocabulary.js";
import type Database from "better-sqlite3";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { ActionRow } from "./ActionRow.js";
import type { ArmBinding } from "./ArmBinding.js";
import { ActionSettlements, type Confirmation, type Settlement } from "./ActionSettlements.js";
import type { HaltRow } from "./HaltRow.js";
import { IntentWriter, type NewIntent } from "./IntentWriter.js";
import { LedgerFileWatch, type LedgerLoss } from "./LedgerFileWatch.js";
import { LedgerHalts } from "./LedgerHalts.js";
import { removeOwnerFile } from "./LedgerOwner.js";
import { LedgerQueries, type ClientFilter, type ClientSeen, type LedgerCursor } from "./LedgerQueries.js";
import { openLedgerDatabase } from "./openLedgerDatabase.js";

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
 *
 * This class is the one face of the ledger; each job behind it is a module
 * of its own: opening and locking (openLedgerDatabase), the schema
 * (ledgerSchema), intents (IntentWriter), settlements and confirmations
 * (ActionSettlements), halts (LedgerHalts), reads (LedgerQueries) and the
 * file watch (LedgerFileWatch).
 */
export class IntentLedger {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #log: Logger;
  readonly #file: LedgerFileWatch;
  readonly #queries: LedgerQueries;
  readonly #intents: IntentWriter;
  readonly #settlements: ActionSettlements;
  readonly #halts: LedgerHalts;
  readonly #meta: { readonly get: Database.Statement; readonly put: Database.Statement };

  private constructor(path: string, db: Database.Database, log: Logger) {
    this.path = path;
    this.#db = db;
    this.#log = log;
    this.#file = new LedgerFileWatch(path, log);
    this.#queries = new LedgerQueries(db);
    this.#intents = new IntentWriter({ db, path, log, file: this.#file, queries: this.#queries });
    this.#settlements = new ActionSettlements(db, log, this.#queries);
    this.#halts = new LedgerHalts(db, log);
    this.#meta = {
      get: db.prepare(`SELECT value FROM meta WHERE key = ?`),
      put: db.prepare(
        `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ),
    };
  }

  /** Opens (or creates) the ledger at `path`; ":memory:" for a throwaway one. */
  static open(path: string, options: { logger?: Logger; lockWaitMs?: number } = {}): IntentLedger {
    const log = (options.logger ?? silentLogger).child({ component: "ledger" });
    const db = openLedgerDatabase(path, { log, lockWaitMs: options.lockWaitMs });
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
    return this.#file.check(now);
  }

  /** The loss noticed so far, without checking again. */
  get lost(): LedgerLoss | undefined {
    return this.#file.lost;
  }

  /** The arm this ledger's rows belong to, once bound. */
  armBinding(): ArmBinding | undefined {
    const get = (key: string): string | undefined => (this.#meta.get.get(key) as { value: string } | undefined)?.value;
    const name = get("arm_name");
    if (name === undefined) return undefined;
    const identity = get("arm_identity");
    return { name, identity: identity === "" ? undefined : identity, boundAt: Number(get("arm_bound_at") ?? 0) };
  }

  /** Records (or, when an operator adopts the ledger, replaces) the arm its rows belong to. */
  bindArm(binding: ArmBinding): void {
    this.#db.transaction(() => {
      this.#meta.put.run("arm_name", binding.name);
      this.#meta.put.run("arm_identity", binding.identity ?? "");
      this.#meta.put.run("arm_bound_at", String(binding.boundAt));
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
    this.#intents.record(intent, now);
    return this.#queries.mustGet(intent.actionId);
  }

  /**
   * The same as `recordIntent`, with group commit: intents recorded in the
   * same tick (one model turn's parallel calls) share one transaction and so
   * one fsync. Each still resolves only once its row is durable, so no
   * command can leave before its intent is on disk.
   */
  recordIntentDurably(intent: NewIntent, now = Date.now()): Promise<void> {
    return this.#intents.recordDurably(intent, now);
  }

  /** Settles a started (or unknown) action by completion or observation (see ActionSettlements.settle). */
  settle(actionId: string, s: Settlement, now = Date.now()): ActionRow {
    return this.#settlements.settle(actionId, s, now);
  }

  /** An operator's word on an `unknown` action (see ActionSettlements.confirm). */
  confirm(actionId: string, c: Confirmation, now = Date.now(), message?: string): ActionRow {
    return this.#settlements.confirm(actionId, c, now, message);
  }

  /** Records a halt (the latch is on from here until released); written durably. */
  recordHalt(
    h: Pick<HaltRow, "haltId" | "haltedAt" | "source" | "operator" | "callId" | "client" | "axes" | "note">,
  ): HaltRow {
    return this.#halts.record(h);
  }

  /** What the arm said to a halt: confirmed (with the pose it reported) or not (with why). */
  answerHalt(
    haltId: string,
    a: {
      readonly confirmed: boolean;
      readonly detail?: string | undefined;
      readonly pose?: Readonly<Record<string, number>> | undefined;
    },
    now = Date.now(),
  ): HaltRow {
    return this.#halts.answer(haltId, a, now);
  }

  /** Releases every open halt in one write; returns them. Throws ARMB_ERR_NOT_HALTED when none is open. */
  releaseHalts(r: { readonly operator: string; readonly note?: string | undefined }, now = Date.now()): HaltRow[] {
    return this.#halts.release(r, now);
  }

  /** Halts not released yet, oldest first: the latch is on while there is one. */
  openHalts(): HaltRow[] {
    return this.#halts.open();
  }

  /** The newest halts, newest first (released or not). */
  recentHalts(limit = 20): HaltRow[] {
    return this.#halts.recent(limit);
  }

  mustGetHalt(haltId: string): HaltRow {
    return this.#halts.mustGet(haltId);
  }

  get(actionId: string): ActionRow | undefined {
    return this.#queries.get(actionId);
  }

  mustGet(actionId: string): ActionRow {
    return this.#queries.mustGet(actionId);
  }

  findByCallId(callId: string): ActionRow | undefined {
    return this.#queries.findByCallId(callId);
  }

  /** Newest first, paged by `after` (see LedgerQueries.list). */
  list(
    filter: {
      state?: ActionRowState | readonly ActionRowState[] | undefined;
      client?: ClientFilter | undefined;
      limit?: number | undefined;
      before?: number | undefined;
      after?: LedgerCursor | undefined;
    } = {},
  ): ActionRow[] {
    return this.#queries.list(filter);
  }

  inState(state: ActionRowState): ActionRow[] {
    return this.#queries.inState(state);
  }

  /** Every client that sent a motion, the most recent first (the history's filter). Rows without a client are left out. */
  clients(limit = 200): ClientSeen[] {
    return this.#queries.clients(limit);
  }
}
