import { randomBytes } from "node:crypto";
import { ArmbridgeError, type ErrorCode } from "../../errors.js";
import type { CallClient, CallResponse, CallResult, ExecuteOptions, FunctionCall } from "../../bridge/BridgePort.js";
import { resultMessages } from "../../bridge/portVocabulary.js";
import type { Logger } from "../../observability/logger.js";
import type { CallAnswer } from "../../wire/CallResultView.js";
import { ApiError } from "../../wire/client/ApiError.js";
import { connectionLost } from "../client/nodeFetch.js";
import type { ServeHttp } from "./ServeHttp.js";

/** Waits between attempts to reach serve again; the last repeats. */
const BACKOFF_MS = [100, 250, 500, 1000, 2000, 5000] as const;
/** How long a lost serve is tried again before the run gives up (a restart of serve takes seconds). */
export const DEFAULT_REATTACH_FOR_MS = 120_000;

export interface RemoteExecutorOptions {
  readonly http: ServeHttp;
  /** Who is calling: recorded with every motion on serve. */
  readonly client: CallClient;
  readonly log: Logger;
  /** How long to keep trying a serve that went away before the call's run fails with ARMB_ERR_BRIDGE_LOST. */
  readonly reattachForMs?: number | undefined;
}

/**
 * `Executor.execute` against a running serve: one `POST /v1/calls` per
 * batch, with the same answers an in-process executor gives (one per call,
 * in order, never a rejection for a call's own outcome).
 *
 * Nothing that matters lives here. The request is never abandoned by this
 * side: there is no client timeout (nodeFetch), and a run that ends
 * its wait (`signal`: the agent's deadline, a Live cancellation) asks serve
 * to end the calls' waits (`POST /v1/calls/cancel`) and still takes the
 * answer, so it learns what became of each call just as in process. When
 * the connection is lost, the same batch is sent again with the same call
 * ids — serve answers a motion it already ran from its ledger (or joins it
 * while it runs), so re-attaching can never move the arm twice. After a
 * cancellation nothing may start again, so then each call is looked up by
 * id (`GET /v1/calls/:id`) instead.
 */
export class RemoteExecutor {
  readonly #options: RemoteExecutorOptions;

  constructor(options: RemoteExecutorOptions) {
    this.#options = options;
  }

  async execute(calls: readonly FunctionCall[], options: ExecuteOptions = {}): Promise<CallResponse[]> {
    if (calls.length === 0) return [];
    // Every call needs an id to be found again; the local executor would make one up too.
    const identified = calls.map((c) => ({
      id: typeof c.id === "string" && c.id.length > 0 ? c.id : `armb_${randomBytes(6).toString("hex")}`,
      name: c.name,
      args: c.args,
    }));
    const ids = identified.map((c) => c.id);
    const deadlineAt = options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs;
    let answered = false;
    let cancelled = false;
    const onAbort = (): void => {
      cancelled = true;
      void this.#cancel(ids, () => answered);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const giveUpAt = Date.now() + (this.#options.reattachForMs ?? DEFAULT_REATTACH_FOR_MS);
      for (let attempt = 0; ; attempt++) {
        if (attempt === 0 && options.signal?.aborted) onAbort();
        if (cancelled && attempt > 0) return await this.#attachEach(identified, giveUpAt);
        try {
          const deadlineMs = deadlineAt === undefined ? undefined : Math.max(1, Math.round(deadlineAt - Date.now()));
          const body = {
            calls: identified,
            ...(deadlineMs === undefined ? {} : { deadline_ms: deadlineMs }),
            client: this.#clientBody(),
          };
          const answer = await this.#options.http.call("calls", { body });
          answered = true;
          return answer.responses.map(fromAnswer);
        } catch (error) {
          if (error instanceof ApiError && error.status === 400) {
            answered = true;
            return identified.map((c) => ({ id: c.id, name: c.name, result: refusedByServe(c.name, error) }));
          }
          if (!retryable(error)) throw asLost(this.#options.http.url, error, ids);
          if (Date.now() >= giveUpAt) throw asLost(this.#options.http.url, error, ids);
          this.#options.log.warn(
            { call_ids: ids, attempt: attempt + 1, err: String(error) },
            "lost serve while calls were under way; re-attaching by call id",
          );
          await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] as number);
        }
      }
    } finally {
      answered = true;
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The answer of each call by id, running nothing (after a cancellation the connection was lost). */
  async #attachEach(calls: readonly { id: string; name: string }[], giveUpAt: number): Promise<CallResponse[]> {
    return Promise.all(
      calls.map(async (c): Promise<CallResponse> => {
        for (let attempt = 0; ; attempt++) {
          try {
            return fromAnswer(await this.#options.http.call("attachCall", { params: { id: c.id } }));
          } catch (error) {
            // Nothing ran or was recorded under this id, and after the cancellation nothing will start.
            if (error instanceof ApiError && error.code === "ARMB_ERR_CALL_NOT_FOUND")
              return { id: c.id, name: c.name, result: cancelledBeforeSend(c.name) };
            if (!retryable(error) || Date.now() >= giveUpAt) throw asLost(this.#options.http.url, error, [c.id]);
            await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] as number);
          }
        }
      }),
    );
  }

  /**
   * Asks serve to end these calls' waits, until it found them or their
   * request was answered: the cancel may reach serve before the request
   * that carries the calls does.
   */
  async #cancel(ids: readonly string[], answered: () => boolean): Promise<void> {
    for (let attempt = 0; attempt < 200 && !answered(); attempt++) {
      try {
        const r = await this.#options.http.call("cancelCalls", { body: { ids } });
        if (r.cancelled.length > 0) return;
      } catch (error) {
        this.#options.log.debug({ call_ids: ids, err: String(error) }, "cancel not delivered yet");
      }
      await sleep(Math.min(25 * 2 ** Math.min(attempt, 5), 1000), { unref: true });
    }
  }

  #clientBody(): { kind: CallClient["kind"]; name: string; session?: string } {
    const c = this.#options.client;
    return { kind: c.kind === "mcp" ? "http" : c.kind, name: c.name, ...(c.session ? { session: c.session } : {}) };
  }
}

/** A serve that cannot be reached, or answers it is still starting (a restart): worth trying again. */
function retryable(error: unknown): boolean {
  return (
    connectionLost(error) ||
    (error instanceof ApiError &&
      (error.code === "ARMB_ERR_HTTP_STARTING" || error.status === 502 || error.status === 504))
  );
}

function asLost(url: string, error: unknown, ids: readonly string[]): Error {
  if (error instanceof ApiError && error.status === 401)
    return new ArmbridgeError("ARMB_ERR_HTTP_UNAUTHORIZED", {}, { cause: error });
  if (!retryable(error)) return error instanceof Error ? error : new Error(String(error));
  const reason = error instanceof Error ? error.message : String(error);
  return new ArmbridgeError(
    "ARMB_ERR_BRIDGE_LOST",
    { url, reason, what: `call(s) ${ids.join(", ")}` },
    { cause: error },
  );
}

/** A FunctionResponse from serve as the executor's CallResponse: the result, with its pictures' bytes put back where they were taken out. */
export function fromAnswer(a: CallAnswer): CallResponse {
  const result = ("output" in a.response ? a.response.output : a.response.error) as CallResult;
  const parts = a.parts ?? [];
  if (parts.length === 0 || !result.images) return { id: a.id, name: a.name, result };
  let k = 0;
  const images = result.images.map((image) => {
    if (image.delivered_as === undefined) return image;
    const part = parts[k++];
    if (!part) return image;
    const { delivered_as: _delivered, ...meta } = image;
    return { ...meta, data: part.inlineData.data };
  });
  return { id: a.id, name: a.name, result: { ...result, images } };
}

/** Serve refused the whole request (400): each call is rejected with its reason, nothing was sent. */
function refusedByServe(tool: string, error: ApiError): CallResult {
  const message = resultMessages.rejected(tool, error.message);
  return {
    status: "rejected",
    error_code: (error.code.startsWith("ARMB_ERR_") ? error.code : "ARMB_ERR_HTTP_BAD_REQUEST") as ErrorCode,
    issues: [{ path: "(request)", code: "refused", message: error.message }],
    message,
    timed_out: false,
    settled_by: "none",
  };
}

/** A call whose wait was cancelled, which serve has no record of: it was never sent. */
function cancelledBeforeSend(tool: string): CallResult {
  return {
    status: "skipped",
    error_code: "ARMB_ERR_DEADLINE_SPENT",
    message: resultMessages.skipped(tool),
    timed_out: false,
    settled_by: "none",
  };
}

/** `unref`: a wait that must not keep the process alive on its own (the cancel loop outliving its answer by a beat). */
function sleep(ms: number, options: { readonly unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref === true) timer.unref();
  });
}
