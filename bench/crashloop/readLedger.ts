import { ApiError } from "../../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../../src/wire/client/ArmbridgeClient.js";
import type { LedgerRowView } from "./judgeCrashLoop.js";

interface ActionsPage {
  readonly actions: readonly LedgerRowView[];
  readonly next_cursor: string | null;
}

export interface LedgerReadBack {
  /** Every row: those the documented paging returned, plus any it skipped that were fetched by id. */
  readonly rows: readonly LedgerRowView[];
  /** Rows the paging returned. */
  readonly paged: number;
  /** Action ids the paging did not return but GET /v1/actions/:id did: rows the documented paging skips. */
  readonly skippedByPaging: readonly string[];
}

/**
 * Reads the whole ledger back through the HTTP API, the way a client is
 * told to: GET /v1/actions pages of 1000, each next page from the previous
 * answer's `next_cursor`, until it is null. Then each action id the harness
 * knows of from elsewhere (the effects log, answers) that paging did not
 * return is fetched by id, so a paging gap can neither hide a row from the
 * judge nor go unreported.
 */
export async function readLedger(
  api: ArmbridgeClient,
  alsoIds: Iterable<string>,
  filter: { readonly state?: string } = {},
): Promise<LedgerReadBack> {
  const byId = new Map<string, LedgerRowView>();
  let cursor: string | null = null;
  const seenCursors = new Set<string>();
  for (;;) {
    const query = {
      limit: "1000",
      ...(filter.state ? { state: filter.state } : {}),
      ...(cursor === null ? {} : { cursor }),
    };
    const page: ActionsPage = await api.call("actions", { query });
    for (const row of page.actions) byId.set(row.action_id, row);
    if (page.next_cursor === null || page.actions.length === 0) break;
    // A cursor that does not move would page forever.
    if (seenCursors.has(page.next_cursor)) break;
    seenCursors.add(page.next_cursor);
    cursor = page.next_cursor;
  }
  const paged = byId.size;
  const skippedByPaging: string[] = [];
  for (const id of new Set(alsoIds)) {
    if (byId.has(id)) continue;
    const row = await getAction(api, id);
    if (!row || (filter.state !== undefined && row.state !== filter.state)) continue;
    byId.set(id, row);
    skippedByPaging.push(id);
  }
  return { rows: [...byId.values()], paged, skippedByPaging };
}

/** One row by id; undefined when the ledger has none (404 ARMB_ERR_ACTION_NOT_FOUND). */
export async function getAction(api: ArmbridgeClient, actionId: string): Promise<LedgerRowView | undefined> {
  try {
    return await api.call("action", { params: { id: actionId } });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}
