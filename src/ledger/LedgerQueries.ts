import type { ActionRowState, ClientKind } from "../wire/vocabulary.js";
import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import type { ActionRow } from "./ActionRow.js";
import { actionRowOf, storedClientOf, type RawActionRow } from "./actionRowOf.js";
import type { CallClient } from "./CallClient.js";

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

/** Where a page of `list` ended: its last row's (created_at, action_id), unique per row. */
export interface LedgerCursor {
  readonly createdAt: number;
  readonly actionId: string;
}

/** Reading the `actions` table: one row, pages of the history, rows in a state, the clients seen. */
export class LedgerQueries {
  readonly #stmts: ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.#stmts = prepare(db);
  }

  get(actionId: string): ActionRow | undefined {
    const raw = this.#stmts.byAction.get(actionId) as RawActionRow | undefined;
    return raw && actionRowOf(raw);
  }

  mustGet(actionId: string): ActionRow {
    const row = this.get(actionId);
    if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId });
    return row;
  }

  findByCallId(callId: string): ActionRow | undefined {
    const raw = this.#stmts.byCall.get(callId) as RawActionRow | undefined;
    return raw && actionRowOf(raw);
  }

  /**
   * Newest first, ordered by (created_at, action_id) — a total order, so
   * `after` (the last row of the previous page) pages without loss even when
   * many rows share a millisecond. `before` (epoch ms) is the older, coarser
   * filter: rows created at or after it are left out. `state` may name
   * several states: a row in any of them is listed.
   */
  list(
    filter: {
      state?: ActionRowState | readonly ActionRowState[] | undefined;
      client?: ClientFilter | undefined;
      limit?: number | undefined;
      before?: number | undefined;
      after?: LedgerCursor | undefined;
    } = {},
  ): ActionRow[] {
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 1000));
    const rows = this.#stmts.list.all({
      // One state or several (the model's `stopped` is two): a JSON list either way, read by json_each.
      states:
        filter.state === undefined
          ? null
          : JSON.stringify(typeof filter.state === "string" ? [filter.state] : filter.state),
      client_kind: filter.client?.kind ?? null,
      client_name: filter.client?.name ?? null,
      client_session: filter.client?.session ?? null,
      before: filter.before ?? null,
      after_at: filter.after?.createdAt ?? null,
      after_id: filter.after?.actionId ?? null,
      limit,
    }) as RawActionRow[];
    return rows.map(actionRowOf);
  }

  inState(state: ActionRowState): ActionRow[] {
    return (this.#stmts.inState.all(state) as RawActionRow[]).map(actionRowOf);
  }

  /** Every client that sent a motion, the most recent first (the history's filter). Rows without a client are left out. */
  clients(limit = 200): ClientSeen[] {
    const raws = this.#stmts.clients.all(Math.max(1, Math.min(limit, 1000))) as {
      client_kind: string;
      client_name: string;
      client_session: string | null;
      n: number;
      first_at: number;
      last_at: number;
    }[];
    return raws.flatMap((r) => {
      const client = storedClientOf(r);
      return client ? [{ client, actions: r.n, firstAt: r.first_at, lastAt: r.last_at }] : [];
    });
  }
}

function prepare(db: Database.Database) {
  return {
    byAction: db.prepare(`SELECT * FROM actions WHERE action_id = ?`),
    byCall: db.prepare(`SELECT * FROM actions WHERE call_id = ?`),
    inState: db.prepare(`SELECT * FROM actions WHERE state = ? ORDER BY created_at, action_id`),
    list: db.prepare(
      `SELECT * FROM actions WHERE (@states IS NULL OR state IN (SELECT value FROM json_each(@states))) AND (@before IS NULL OR created_at < @before)
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
