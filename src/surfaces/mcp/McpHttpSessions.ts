import { randomUUID } from "node:crypto";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type Server,
} from "@modelcontextprotocol/server";
import { ArmbridgeError } from "../../errors.js";
import { silentLogger, type Logger } from "../../observability/logger.js";
import type { BridgePort, ToolDefinition } from "../../bridge/BridgePort.js";
import { createMcpServer } from "./createMcpServer.js";

export interface McpHttpSessionsOptions {
  readonly logger?: Logger | undefined;
  /** The run deadline each tools/call inherits (ms). Default: the executor's. */
  readonly deadlineMs?: number | undefined;
  /** Sessions open at once (default 64). A new one evicts the least recently used idle session, else is refused. */
  readonly maxSessions?: number | undefined;
}

export const DEFAULT_MAX_MCP_SESSIONS = 64;

interface Session {
  readonly id: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** tools/call handlers under way: a session with a call in flight is never evicted. */
  calls: number;
}

/**
 * MCP over Streamable HTTP, both protocol eras on one endpoint (the SDK's
 * own era classification, isLegacyRequest, decides which a request is):
 *
 * - 2026-07-28 (stateless): every request carries its protocol version and
 *   client info in `_meta`; each is answered by a server made for it
 *   (createMcpHandler), its call recorded under the client it names. With no
 *   session, a call's default id is random; a host that re-issues a call
 *   after a broken stream names it with `_meta["armbridge/call_id"]`, which
 *   survives the re-issue, and is answered from the ledger.
 * - 2025-11-25 (sessions): every client that sends `initialize` gets a
 *   session id (`mcp-session-id`), its own server, and its calls recorded
 *   under its `clientInfo` name and that session.
 *
 * All drive the same bridge, so their calls queue on the joint locks with
 * every other surface's. Bearer token, Host and Origin are the HTTP app's,
 * checked before a request gets here. Responses to tools/call stream as SSE
 * with the SDK's keep-alive comments, so a client waiting minutes for a
 * motion sees bytes flowing.
 */
export class McpHttpSessions {
  readonly #bridge: BridgePort<ToolDefinition>;
  readonly #log: Logger;
  readonly #deadlineMs: number | undefined;
  readonly #max: number;
  readonly #sessions = new Map<string, Session>();
  readonly #stateless: McpHttpHandler;
  #closed = false;

  constructor(bridge: BridgePort<ToolDefinition>, options: McpHttpSessionsOptions = {}) {
    this.#bridge = bridge;
    this.#log = (options.logger ?? silentLogger).child({ component: "mcp_http" });
    this.#deadlineMs = options.deadlineMs;
    this.#max = options.maxSessions ?? DEFAULT_MAX_MCP_SESSIONS;
    this.#stateless = createMcpHandler(
      () => createMcpServer(this.#bridge, { logger: this.#log, deadlineMs: this.#deadlineMs }),
      {
        // 2025-era requests are served by the sessions below, never reach this handler.
        legacy: "reject",
        responseMode: "sse",
        onerror: (error) => this.#log.debug({ err: String(error) }, "MCP request refused"),
      },
    );
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * One request to `/mcp` (POST, GET or DELETE); `body` is the parsed JSON of
   * a POST. The request's signal aborts when the client goes away.
   */
  async handle(request: Request, body: unknown): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id") ?? undefined;
    if (sessionId !== undefined) {
      const session = this.#sessions.get(sessionId);
      if (!session)
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it ended (DELETE, eviction, or a restart of serve); send initialize again",
        );
      session.lastUsed = Date.now();
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (this.#closed) return jsonRpcError(503, -32000, "The bridge is shutting down");
    if (!(await isLegacyRequest(request, body))) return this.#stateless.fetch(request, { parsedBody: body });
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: no mcp-session-id header; a session starts with an initialize request " +
          "(2025-11-25), or each request carries _meta io.modelcontextprotocol/protocolVersion (2026-07-28)",
      );
    }
    this.#makeRoom();
    const session = this.#open();
    return session.transport.handleRequest(request, { parsedBody: body });
  }

  /** Closes every session (their streams end; calls in flight were ended by the executor's close). */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all([
      this.#stateless.close().catch(() => undefined),
      ...all.map((s) => s.server.close().catch(() => undefined)),
    ]);
  }

  #open(): Session {
    let id: string | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        id = sid;
        this.#sessions.set(sid, session);
        this.#log.info({ session: sid, client: server.getClientVersion()?.name }, "MCP session opened");
      },
      onsessionclosed: (sid) => {
        this.#sessions.delete(sid);
        this.#log.info({ session: sid }, "MCP session closed by its client");
      },
    });
    const server = createMcpServer(this.#bridge, {
      logger: this.#log,
      deadlineMs: this.#deadlineMs,
      session: () => id,
      sessionScopedIds: true,
      onCallCount: (delta) => {
        session.calls += delta;
        session.lastUsed = Date.now();
      },
    });
    const session: Session = {
      get id() {
        return id ?? "";
      },
      server,
      transport,
      lastUsed: Date.now(),
      calls: 0,
    };
    transport.onclose = () => {
      if (id !== undefined) this.#sessions.delete(id);
    };
    // connect() only wires the transport's callbacks; it cannot fail for this transport.
    void server
      .connect(transport)
      .catch((error: unknown) => this.#log.error({ err: String(error) }, "MCP session could not start"));
    return session;
  }

  /** At the cap: the least recently used session with no call under way goes; with none idle, the new one is refused. */
  #makeRoom(): void {
    if (this.#sessions.size < this.#max) return;
    let oldest: Session | undefined;
    for (const s of this.#sessions.values()) if (s.calls === 0 && (!oldest || s.lastUsed < oldest.lastUsed)) oldest = s;
    if (!oldest) throw new ArmbridgeError("ARMB_ERR_MCP_TOO_MANY_SESSIONS", { limit: this.#max });
    this.#sessions.delete(oldest.id);
    this.#log.info(
      { session: oldest.id, idle_ms: Date.now() - oldest.lastUsed },
      "MCP session evicted to make room for a new one",
    );
    void oldest.server.close().catch(() => undefined);
  }
}

/** A JSON-RPC error as the SDK's transport answers one (no id: it answers no request it could read). */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
