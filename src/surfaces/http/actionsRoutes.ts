import { CONFIRM_OUTCOMES, type ActionRowState, CLIENT_KINDS } from "../../wire/vocabulary.js";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ArmbridgeError } from "../../errors.js";
import { actionView, actionViewWithOptions } from "./actionView.js";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import {
  CLIENT_NAME_MAX,
  CLIENT_SESSION_MAX,
  CONFIRM_OUTCOME_ALIASES,
  STATE_INPUTS,
  statesOfWord,
} from "../../bridge/portVocabulary.js";

import { decodePageCursor, encodePageCursor } from "./pageCursor.js";
import { parseInput } from "./parseInput.js";
import { serveRoute } from "./serveRoute.js";
import type { ActionsPage } from "../../wire/ActionView.js";

const listQuery = z.strictObject({
  // The ledger's name of a state, its shared word (confirmed_reached for confirmed_done, …), or the model's word (stopped).
  state: z
    .enum(STATE_INPUTS as [string, ...string[]])
    .transform((w) => statesOfWord(w) as readonly ActionRowState[])
    .optional(),
  /** Only actions sent by this client (each field given must match; GET /v1/clients lists them). */
  client_kind: z.enum(CLIENT_KINDS).optional(),
  client_name: z.string().max(CLIENT_NAME_MAX).optional(),
  client_session: z.string().max(CLIENT_SESSION_MAX).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  /** Only actions created before this epoch ms. */
  before: z.coerce.number().int().nonnegative().optional(),
  /** Only actions after the previous page: its `next_cursor`, unchanged. */
  cursor: z.string().min(1).max(400).optional(),
});

const idParams = z.strictObject({ id: z.string().min(1).max(200) });

const confirmBody = z.strictObject({
  // reached / partial / not_moved; done and not_done are the first API's words for reached and not_moved.
  outcome: z.enum([
    ...CONFIRM_OUTCOMES,
    ...(Object.keys(CONFIRM_OUTCOME_ALIASES) as (keyof typeof CONFIRM_OUTCOME_ALIASES)[]),
  ]),
  // Emptiness is the ledger's rule (ARMB_ERR_OPERATOR_REQUIRED), so it is checked in one place.
  operator: z.string().max(200),
  note: z.string().max(2000).optional(),
});

/** The ledger view: list, one action, and an operator's confirmation of an `unknown` one. */
export function registerActionsRoutes(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "actions", async (request) => {
    // `?state=` from a blank form field means "any", not a state named "".
    const raw = Object.fromEntries(
      Object.entries(request.query as Record<string, unknown>).filter(([, v]) => v !== ""),
    );
    const q = parseInput(listQuery, raw, "query");
    const limit = q.limit ?? 100;
    const after = q.cursor === undefined ? undefined : decodePageCursor(q.cursor);
    const client = { kind: q.client_kind, name: q.client_name, session: q.client_session };
    const rows = bridge.actions.list({ state: q.state, client, limit, before: q.before, after });
    const last = rows.length === limit ? rows.at(-1) : undefined;
    const page: ActionsPage = {
      actions: rows.map(actionView),
      next_cursor: last ? encodePageCursor(last) : null,
      // Kept for clients written against it; `before=next_before` skips rows that share the
      // page's last millisecond, which next_cursor never does.
      next_before: last ? last.createdAt : null,
    };
    return page;
  });

  serveRoute(app, "action", async (request) => {
    const { id } = parseInput(idParams, request.params, "params");
    const row = bridge.actions.get(id);
    if (!row) throw new ArmbridgeError("ARMB_ERR_ACTION_NOT_FOUND", { actionId: id });
    return actionViewWithOptions(row, bridge.arm.latestStatus());
  });

  serveRoute(app, "confirmAction", async (request) => {
    const { id } = parseInput(idParams, request.params, "params");
    const body = parseInput(confirmBody, request.body, "body");
    const row = bridge.operator.confirm(id, { outcome: body.outcome, operator: body.operator, note: body.note });
    return actionView(row);
  });
}
