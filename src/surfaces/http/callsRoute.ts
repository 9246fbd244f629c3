import type { ClientKind } from "../../wire/vocabulary.js";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ArmbridgeError } from "../../errors.js";
import { toFunctionResponse } from "../toFunctionResponse.js";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { CLIENT_NAME_MAX, CLIENT_SESSION_MAX, normalizeClient } from "../../bridge/portVocabulary.js";
import { CallWaits } from "./CallWaits.js";
import { callerGone, holdOpen } from "./holdOpen.js";
import { parseInput } from "./parseInput.js";
import { serveRoute } from "./serveRoute.js";
import type { CallAnswer, CallsCancelled, CallsResponse } from "../../wire/CallResultView.js";
import { MAX_BATCH } from "../../wire/limits.js";

/** Kinds a caller of /v1/calls may say it is; `mcp` is the MCP endpoint's own, taken from the session. */
const HTTP_CLIENT_KINDS = ["agent", "http", "console", "cli"] as const satisfies readonly Exclude<ClientKind, "mcp">[];

// Calls are Gemini functionCall objects, which may carry fields we do not use,
// so they are not strict; the envelope is, so `deadlineMs` is caught as a typo.
const callsBody = z.strictObject({
  calls: z
    .array(
      z.object({
        // Capped and checked for well-formedness by the executor's admission, for every surface alike (a coded `rejected`).
        id: z.string().min(1).optional(),
        name: z.string().min(1).max(200),
        args: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_BATCH),
  deadline_ms: z.number().int().positive().max(3_600_000).optional(),
  /** Who is calling: recorded with each motion and shown in the console (default `{kind: "http", name: "http"}`). */
  client: z
    .strictObject({
      kind: z.enum(HTTP_CLIENT_KINDS).optional(),
      name: z.string().max(CLIENT_NAME_MAX * 4),
      session: z
        .string()
        .max(CLIENT_SESSION_MAX * 4)
        .optional(),
    })
    .optional(),
});

const cancelBody = z.strictObject({ ids: z.array(z.string().min(1).max(1000)).min(1).max(MAX_BATCH) });

const idParams = z.strictObject({ id: z.string().min(1).max(1000) });

/**
 * The calls API. A call may wait for minutes (an approval, a slow move): the
 * server never cuts it (holdOpen), and a client that loses its connection
 * loses nothing — motions it started are followed to their end and recorded,
 * and it gets their outcome back by call id.
 *
 * - `POST /v1/calls` — one model turn: `{calls:[{id,name,args}], deadline_ms?,
 *   client?}` → `{responses:[{id,name,response}]}` in call order (Gemini
 *   FunctionResponse shapes). An unknown tool or bad args is not an HTTP
 *   error: it is the call's own result, under `response.error`. The caller
 *   going away withdraws what has not been sent; a motion already sent is
 *   seen through and recorded.
 * - `POST /v1/calls/cancel {ids}` — ends the waits of the calls named, and
 *   only those (not yet sent: skipped ARMB_ERR_CALL_ENDED; a motion: our
 *   wait ends and it is settled by observation, never stopped); the other
 *   calls of their batch go on, and their request answers with every result.
 * - `GET /v1/calls/:id` — re-attach: waits for the motion call under way with
 *   this id, or answers its recorded result (`replayed`); 404
 *   ARMB_ERR_CALL_NOT_FOUND when no motion runs or was recorded under it.
 */
export function registerCallsRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  const waits = new CallWaits();

  serveRoute(app, "calls", async (request, reply) => {
    const body = parseInput(callsBody, request.body, "body");
    holdOpen(request, reply);
    const gone = callerGone(reply);
    const { signals, forget } = waits.register(body.calls.flatMap((c) => (c.id === undefined ? [] : [c.id])));
    const client = normalizeClient({
      kind: body.client?.kind ?? "http",
      name: body.client?.name,
      session: body.client?.session,
    });
    try {
      const responses = await bridge.execute(body.calls, {
        deadlineMs: body.deadline_ms,
        callSignals: signals,
        detach: gone.signal,
        client,
      });
      const answer: CallsResponse = { responses: responses.map(toFunctionResponse) };
      return answer;
    } finally {
      forget();
      gone.dispose();
    }
  });

  serveRoute(app, "cancelCalls", async (request): Promise<CallsCancelled> => {
    const body = parseInput(cancelBody, request.body, "body");
    const found = waits.cancel(body.ids, "cancelled by its caller (POST /v1/calls/cancel {ids})");
    return { cancelled: found, not_waiting: body.ids.filter((id) => !found.includes(id)) };
  });

  serveRoute(app, "attachCall", async (request, reply): Promise<CallAnswer> => {
    const { id } = parseInput(idParams, request.params, "params");
    holdOpen(request, reply);
    const found = await bridge.attach(id);
    if (!found) throw new ArmbridgeError("ARMB_ERR_CALL_NOT_FOUND", { callId: id });
    return toFunctionResponse(found);
  });
}
