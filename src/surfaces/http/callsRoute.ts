import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Bridge } from "../../bridge/Bridge.js";
import { toFunctionResponse } from "../toFunctionResponse.js";
import { parseInput } from "./parseInput.js";
import type { CallsResponse } from "./wire/CallResultView.js";

/** The executor's own batch ceiling; refusing more here gives one clear 400 instead of 64+ rejections. */
const MAX_CALLS = 64;

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
    .max(MAX_CALLS),
  deadline_ms: z.number().int().positive().max(3_600_000).optional(),
});

/**
 * POST /v1/calls — one model turn: `{calls:[{id,name,args}], deadline_ms?}` →
 * `{responses:[{id,name,response}]}` in call order (Gemini FunctionResponse
 * shapes). An unknown tool or bad args is not an HTTP error: it is the call's
 * own result, under `response.error`, for the model to read.
 */
export function registerCallsRoute(app: FastifyInstance, bridge: Bridge): void {
  app.post("/v1/calls", async (request, reply) => {
    const body = parseInput(callsBody, request.body, "body");
    // The caller going away ends our waiting (motions already sent are not
    // stopped, and still settle by observation into the ledger).
    const gone = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.on("close", onClose);
    try {
      const responses = await bridge.executor.execute(body.calls, { deadlineMs: body.deadline_ms, signal: gone.signal });
      const answer: CallsResponse = { responses: responses.map(toFunctionResponse) };
      return answer;
    } finally {
      reply.raw.off("close", onClose);
    }
  });
}
