import type { HaltSource } from "../wire/vocabulary.js";
import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import { isClientKind, normalizeClient } from "./CallClient.js";
import type { HaltRow } from "./HaltRow.js";

/**
 * The ledger's `halts` table: every halt asked of the arm, what the arm said
 * to it, and who released it. The latch is on while any halt is open (not
 * released); every write here is durable (synchronous=FULL).
 */
export class LedgerHalts {
  readonly #log: Logger;
  readonly #stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database, log: Logger) {
    this.#log = log;
    this.#stmts = prepare(db);
  }

  /** Records a halt (the latch is on from here until released); written durably. */
  record(
    h: Pick<HaltRow, "haltId" | "haltedAt" | "source" | "operator" | "callId" | "client" | "axes" | "note">,
  ): HaltRow {
    const client = h.client ? normalizeClient(h.client) : undefined;
    this.#stmts.insert.run({
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
    this.#log.warn(
      { halt_id: h.haltId, source: h.source, operator: h.operator, axes: h.axes },
      "halt recorded: every motion is refused until an operator releases it",
    );
    return this.mustGet(h.haltId);
  }

  /** What the arm said to a halt: confirmed (with the pose it reported) or not (with why). */
  answer(
    haltId: string,
    a: {
      readonly confirmed: boolean;
      readonly detail?: string | undefined;
      readonly pose?: Readonly<Record<string, number>> | undefined;
    },
    now = Date.now(),
  ): HaltRow {
    this.#stmts.answer.run({
      halt_id: haltId,
      confirmed: a.confirmed ? 1 : 0,
      detail: a.detail ?? null,
      pose_json: a.pose ? JSON.stringify(a.pose) : null,
      now,
    });
    return this.mustGet(haltId);
  }

  /** Releases every open halt in one write; returns them. Throws ARMB_ERR_NOT_HALTED when none is open. */
  release(r: { readonly operator: string; readonly note?: string | undefined }, now = Date.now()): HaltRow[] {
    const open = this.open();
    if (open.length === 0) throw new ArmbridgeError("ARMB_ERR_NOT_HALTED");
    this.#stmts.release.run({ operator: r.operator, note: r.note ?? null, now });
    this.#log.warn(
      { halts: open.map((h) => h.haltId), operator: r.operator },
      "halt released by an operator: motion is accepted again",
    );
    return open.map((h) => this.mustGet(h.haltId));
  }

  /** Halts not released yet, oldest first: the latch is on while there is one. */
  open(): HaltRow[] {
    return (this.#stmts.open.all() as RawHalt[]).map(haltRowOf);
  }

  /** The newest halts, newest first (released or not). */
  recent(limit = 20): HaltRow[] {
    return (this.#stmts.recent.all(Math.max(1, Math.min(limit, 1000))) as RawHalt[]).map(haltRowOf);
  }

  mustGet(haltId: string): HaltRow {
    const raw = this.#stmts.byId.get(haltId) as RawHalt | undefined;
    if (!raw) throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: `no halt ${haltId} in the ledger` });
    return haltRowOf(raw);
  }
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT INTO halts (halt_id, halted_at, source, operator, call_id, client_kind, client_name, client_session, axes_json, note)
       VALUES (@halt_id, @halted_at, @source, @operator, @call_id, @client_kind, @client_name, @client_session, @axes_json, @note)`,
    ),
    answer: db.prepare(
      `UPDATE halts SET confirmed = @confirmed, detail = @detail, pose_json = @pose_json, answered_at = @now WHERE halt_id = @halt_id`,
    ),
    release: db.prepare(
      `UPDATE halts SET released_at = @now, released_by = @operator, release_note = @note WHERE released_at IS NULL`,
    ),
    open: db.prepare(`SELECT * FROM halts WHERE released_at IS NULL ORDER BY halted_at, halt_id`),
    recent: db.prepare(`SELECT * FROM halts ORDER BY halted_at DESC, halt_id DESC LIMIT ?`),
    byId: db.prepare(`SELECT * FROM halts WHERE halt_id = ?`),
  };
}

/** A row of the `halts` table as SQLite returns it. */
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

function haltRowOf(r: RawHalt): HaltRow {
  return {
    haltId: r.halt_id,
    haltedAt: r.halted_at,
    source: r.source as HaltSource,
    operator: r.operator ?? undefined,
    callId: r.call_id ?? undefined,
    ...(isClientKind(r.client_kind) && r.client_name !== null
      ? {
          client:
            r.client_session === null
              ? { kind: r.client_kind, name: r.client_name }
              : { kind: r.client_kind, name: r.client_name, session: r.client_session },
        }
      : {}),
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
