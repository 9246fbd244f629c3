import { randomBytes } from "node:crypto";
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import type { Logger } from "../../observability/logger.js";
import { MCP_CALL_ID_META } from "../mcp/createMcpServer.js";
import { ApiError } from "../../wire/client/ApiError.js";
import type { ArmbridgeClient } from "../../wire/client/ArmbridgeClient.js";
import { readEventStream } from "../../wire/client/readEventStream.js";
import { connectionLost } from "../client/nodeFetch.js";

/** Waits between attempts to reach serve again; the last repeats. */
const BACKOFF_MS = [100, 250, 500, 1000, 2000, 5000] as const;
/** How long a request is tried again before the host is told serve is gone. */
const DEFAULT_RETRY_FOR_MS = 120_000;
/** A protocol version every MCP server of this SDK answers, for the header before the host's own is known. */
const PROTOCOL_HEADER = "mcp-protocol-version";

export interface McpStdioProxyOptions {
  /** A client that reports a lost connection as ARMB_ERR_HTTP_UNREACHABLE (connectToServe). */
  readonly http: Pick<ArmbridgeClient, "url" | "send" | "lost">;
  readonly log: Logger;
  /** Where messages for the host go (the stdio transport's send). */
  readonly toHost: (message: JSONRPCMessage) => Promise<void>;
  readonly retryForMs?: number | undefined;
}

/**
 * `armbridge mcp --bridge URL`: an MCP host that only speaks stdio, relayed
 * to serve's MCP endpoint (`/mcp`, Streamable HTTP). Each message from the
 * host is POSTed as it is; what serve answers (JSON or an SSE stream of
 * progress notifications and the response) goes back to the host. The host's
 * own `initialize` opens the session, so serve records its calls under the
 * host's name.
 *
 * What a relay adds is re-attaching. Every tools/call leaves with a call id
 * (`_meta["armbridge/call_id"]`, unless the host set one) made of this
 * relay's id and a random part, kept with the request. When
 * the connection is lost before the answer, or serve restarted and forgot
 * the session, the relay opens a session again (replaying the host's
 * `initialize`) and sends the same request: serve answers a motion it
 * already ran from its ledger, or joins it while it runs — never a second
 * motion.
 *
 * A request the host cancels (notifications/cancelled) is done with here:
 * the cancellation goes on to serve, which ends the call's wait (never its
 * motion), and the relay stops waiting for the answer and never sends the
 * request again — a call cancelled while it queued must not start because
 * serve restarted under the relay afterwards.
 */
export class McpStdioProxy {
  readonly #options: McpStdioProxyOptions;
  readonly #relayId = randomBytes(4).toString("hex");
  #session: string | undefined;
  #protocolVersion: string | undefined;
  /** The host's initialize, replayed to open a new session after serve forgot the old one. */
  #initialize: JSONRPCRequest | undefined;
  #reopening: Promise<void> | undefined;
  /** Settles once the host's initialize was answered: nothing else may go before the session exists. */
  #initialized: Promise<void> | undefined;
  #closed = false;
  /** The host's requests under way, each with what ends the relay's part in it (the host cancelled it). */
  readonly #underWay = new Map<RequestId, AbortController>();

  constructor(options: McpStdioProxyOptions) {
    this.#options = options;
  }

  /**
   * One message from the host. Never rejects: a request that cannot be
   * delivered is answered with a JSON-RPC error. Messages after `initialize`
   * wait for its answer (the session id); after that each goes at once, so a
   * long tools/call holds up nothing else.
   */
  fromHost(message: JSONRPCMessage): Promise<void> {
    this.#noteCancellation(message);
    const outgoing = this.#withCallId(message);
    if (!isInitializeRequest(outgoing))
      return (this.#initialized ?? Promise.resolve()).then(() => this.#deliver(outgoing));
    this.#initialize = outgoing as JSONRPCRequest;
    const sent = this.#deliver(outgoing);
    this.#initialized = sent;
    return sent;
  }

  async #deliver(outgoing: JSONRPCMessage): Promise<void> {
    const id = isJSONRPCRequest(outgoing) ? outgoing.id : undefined;
    const cancel = new AbortController();
    if (id !== undefined) this.#underWay.set(id, cancel);
    try {
      await this.#deliverUntil(outgoing, cancel.signal);
    } finally {
      if (id !== undefined && this.#underWay.get(id) === cancel) this.#underWay.delete(id);
    }
  }

  async #deliverUntil(outgoing: JSONRPCMessage, cancelled: AbortSignal): Promise<void> {
    const giveUpAt = Date.now() + (this.#options.retryForMs ?? DEFAULT_RETRY_FOR_MS);
    for (let attempt = 0; !this.#closed && !cancelled.aborted; attempt++) {
      try {
        await this.#reopening;
        if (cancelled.aborted) return;
        await this.#post(outgoing, (m) => this.#options.toHost(m), cancelled);
        return;
      } catch (error) {
        // The host cancelled it: no answer is owed, and it must not be sent again.
        if (cancelled.aborted) return;
        const sessionGone =
          error instanceof ApiError &&
          error.status === 404 &&
          this.#session !== undefined &&
          !isInitializeRequest(outgoing);
        const retry =
          sessionGone ||
          connectionLost(error) ||
          (error instanceof ApiError && (error.status === 502 || error.status === 503 || error.status === 504));
        if (!retry || Date.now() >= giveUpAt) return this.#failed(outgoing, error);
        this.#options.log.warn(
          { attempt: attempt + 1, err: String(error), session_gone: sessionGone },
          "lost serve's MCP endpoint; sending the same request again",
        );
        if (sessionGone) this.#reopenSession();
        await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]));
      }
    }
  }

  /** notifications/cancelled from the host: the relay's part in that request ends (the notification itself still goes to serve). */
  #noteCancellation(message: JSONRPCMessage): void {
    if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") return;
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    this.#underWay.get(requestId)?.abort(new Error("the host cancelled the request"));
  }

  /** Ends the session on serve (DELETE), best effort. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#session === undefined) return;
    try {
      const res = await this.#options.http.send("mcpDelete", undefined, undefined, { headers: this.#headers() });
      await res.arrayBuffer();
    } catch {
      // serve is gone already: nothing to end.
    }
  }

  /**
   * A tools/call without a host call id gets one that survives a new
   * session: this relay's id and a random part, made once per request (every
   * re-send carries the same message). Random, not the host's JSON-RPC id:
   * ids others could predict (the relay's id is in the ledger) could be taken
   * by another client first, and the host's next call refused or answered
   * with that client's result.
   */
  #withCallId(message: JSONRPCMessage): JSONRPCMessage {
    if (!isJSONRPCRequest(message) || message.method !== "tools/call") return message;
    const params = (message.params ?? {}) as { _meta?: Record<string, unknown> };
    if (typeof params._meta?.[MCP_CALL_ID_META] === "string") return message;
    const callId = `mcpx:${this.#relayId}:${randomBytes(12).toString("hex")}`;
    return { ...message, params: { ...params, _meta: { ...params._meta, [MCP_CALL_ID_META]: callId } } };
  }

  #headers(message?: JSONRPCMessage): Record<string, string> {
    const modern = message === undefined ? undefined : modernHeaders(message);
    return {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.#session === undefined ? {} : { "mcp-session-id": this.#session }),
      ...(this.#protocolVersion === undefined ? {} : { [PROTOCOL_HEADER]: this.#protocolVersion }),
      ...modern,
    };
  }

  /** POSTs one message and relays every message of the answer; throws when the answer to a request did not arrive whole. */
  async #post(
    message: JSONRPCMessage,
    relay: (m: JSONRPCMessage) => Promise<void> = (m) => this.#options.toHost(m),
    signal?: AbortSignal,
  ): Promise<void> {
    const res = await this.#options.http.send("mcpPost", undefined, JSON.stringify(message), {
      headers: this.#headers(message),
      signal,
    });
    const session = res.headers.get("mcp-session-id") ?? undefined;
    if (isInitializeRequest(message) && session !== undefined) this.#session = session;
    if (res.status === 202) return void (await res.arrayBuffer());
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      throw new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 300));
    }
    const wanted = isJSONRPCRequest(message) ? message.id : undefined;
    let answered = false;
    const deliver = async (m: unknown): Promise<void> => {
      // Nothing more goes to the host about a request it cancelled.
      if (!isMessage(m) || signal?.aborted === true) return;
      if ((isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)) && m.id === wanted) {
        answered = true;
        const version =
          isInitializeRequest(message) && isJSONRPCResultResponse(m)
            ? (m.result as { protocolVersion?: unknown }).protocolVersion
            : undefined;
        if (typeof version === "string") this.#protocolVersion = version;
      }
      await relay(m);
    };
    try {
      if ((res.headers.get("content-type") ?? "").includes("text/event-stream") && res.body) {
        for await (const block of readEventStream(res.body)) await deliver(block.data);
      } else {
        const body = JSON.parse(await res.text()) as unknown;
        for (const m of Array.isArray(body) ? body : [body]) await deliver(m);
      }
    } catch (error) {
      if (wanted !== undefined && !answered) throw this.#options.http.lost(error);
    }
    if (wanted !== undefined && !answered)
      throw this.#options.http.lost(new Error("the answer's stream ended before the response"));
  }

  /** serve forgot the session (a restart, an eviction): open a new one with the host's own initialize, its answer kept from the host. */
  #reopenSession(): void {
    if (this.#reopening) return;
    const init = this.#initialize;
    this.#session = undefined;
    this.#reopening = (async () => {
      if (!init) return;
      await this.#post({ ...init, id: `armbridge-relay-init-${this.#relayId}` }, async () => undefined);
      await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" }, async () => undefined);
      this.#options.log.info({ session: this.#session }, "opened a new MCP session on serve for the host");
    })()
      .catch((error: unknown) => this.#options.log.warn({ err: String(error) }, "could not open a new MCP session yet"))
      .finally(() => {
        this.#reopening = undefined;
      });
  }

  /** Tells the host its request could not be delivered (notifications are only logged). */
  async #failed(message: JSONRPCMessage, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    this.#options.log.error({ err: reason }, "could not deliver a message to serve's MCP endpoint");
    if (!isJSONRPCRequest(message)) return;
    await this.#options
      .toHost({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: -32603,
          message: `armbridge serve at ${this.#options.http.url} could not be reached (${reason}); any motion it took goes on there and is in its ledger. Calling again with the same request re-attaches to it.`,
        },
      })
      .catch(() => undefined);
  }
}

function isMessage(m: unknown): m is JSONRPCMessage {
  return typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** The body field each method's `Mcp-Name` header mirrors (MCP 2026-07-28, Streamable HTTP). */
const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * A 2026-07-28 host (its protocol version in the message's `_meta`, no
 * session) has its message carry the headers that era requires on every POST:
 * the version, `Mcp-Method`, and `Mcp-Name` where the method names a target.
 * A 2025-era message gets none of them.
 */
function modernHeaders(message: JSONRPCMessage): Record<string, string> | undefined {
  if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) return undefined;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const version = (params._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== "string") return undefined;
  const field = MCP_NAME_SOURCE[message.method];
  const name = field === undefined ? undefined : params[field];
  return {
    [PROTOCOL_HEADER]: version,
    "mcp-method": message.method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
  };
}
