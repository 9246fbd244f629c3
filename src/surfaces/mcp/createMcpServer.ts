import { randomUUID } from "node:crypto";
import {
  CLIENT_INFO_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Implementation,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import type { BridgePort, CallClient, ExecutorEvent, ToolDefinition } from "../../bridge/BridgePort.js";
import { mcpSessionCallId, normalizeClient, paceWords } from "../../bridge/portVocabulary.js";
import { silentLogger, type Logger } from "../../observability/logger.js";
import { CALL_RESULT_OUTPUT_SCHEMA, toCallToolResult } from "./toCallToolResult.js";
import { toolAnnotations } from "./toolAnnotations.js";
import { packageVersion } from "../packageVersion.js";
import { MAX_CALL_ID_LENGTH } from "../../wire/limits.js";

export interface McpServerOptions {
  readonly logger?: Logger | undefined;
  /** The run deadline each tools/call inherits (ms). Default: the executor's. */
  readonly deadlineMs?: number | undefined;
  /**
   * The MCP session this server answers (Streamable HTTP's `mcp-session-id`
   * on the 2025-11-25 protocol, or `stdio`): recorded with every call as the
   * client's session, and, over HTTP, part of each call's default id (see
   * MCP_CALL_ID_META). The 2026-07-28 protocol has no sessions: undefined.
   */
  readonly session?: (() => string | undefined) | undefined;
  /**
   * True when the session id is unique to this session (Streamable HTTP): a
   * tools/call without `_meta["armbridge/call_id"]` then gets the id
   * `mcp:<session>:<JSON-RPC id as JSON>` (mcpSessionCallId: the number 7 and
   * the string "7" are two requests, so two ids), so a request the client
   * re-sends after a lost connection (same session, same JSON-RPC id, which
   * MCP forbids reusing for another request) is answered from the ledger
   * instead of moving again. No other client may take an id of that form
   * (callIdNamespaceProblem). Over stdio ids restart with every process:
   * random ids.
   */
  readonly sessionScopedIds?: boolean | undefined;
  /** Told when a tools/call starts (+1) and ends (-1): a session with a call under way is not evicted. */
  readonly onCallCount?: ((delta: 1 | -1) => void) | undefined;
}

/**
 * A host may name its call with `_meta["armbridge/call_id"]`. The executor
 * keys idempotency on the call id: a host that re-sends the same call after a
 * lost connection then gets the recorded result and nothing moves twice.
 * Without it every tools/call is a new call (JSON-RPC ids restart with each
 * session, so they cannot serve). The id is the host's to choose, except one
 * in another MCP session's namespace (`mcp:<session>:…`), which is refused;
 * ids that others could guess can be taken by them, so a host uses random
 * ones.
 */
export const MCP_CALL_ID_META = "armbridge/call_id";

const INSTRUCTIONS =
  "armbridge drives a robot arm. Motion tools block until the motion ends. Read `status` in each result: " +
  "done; failed (nothing moved, you may re-run); unknown (do NOT re-run — a person must confirm it; its joints are blocked until then); " +
  "blocked (a joint awaits an operator); rejected (fix the arguments); skipped (no time left, nothing sent). " +
  "Calls you make in parallel on different joints run together; calls sharing a joint run one after another. " +
  "A lost connection or a cancelled request ends only your wait, never a motion already sent; to learn its result, " +
  'send the same call again with the same _meta["armbridge/call_id"]: it is answered from the ledger, never run twice.';

/**
 * An MCP server (low-level `Server`, so the declarations' JSON Schema is
 * passed through as-is) exposing every tool of the registry. Each tools/call
 * goes through `executor.execute` like any other surface, and is answered
 * with the same three-valued result (see toCallToolResult for isError).
 * Served per request (2026-07-28) or per session (2025-11-25) by
 * McpHttpSessions, per connection by the SDK's `serveStdio`: the same
 * server for both protocol eras.
 *
 * The low-level `Server` (which the SDK marks deprecated for everyday use in
 * favour of `McpServer`) on purpose: `McpServer` builds input schemas from zod
 * shapes, while the declarations models see are already JSON Schema, and MCP
 * hosts must see exactly the same schema as Gemini and the HTTP API.
 */
/** `bridge`'s tools carry their kind, for the hosts' annotations (toolAnnotations). */
export function createMcpServer(bridge: BridgePort<ToolDefinition>, options: McpServerOptions = {}): Server {
  const log = (options.logger ?? silentLogger).child({ component: "mcp" });
  const server = new Server(
    { name: "armbridge", version: packageVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  const tools = toolsOf(bridge);

  server.setRequestHandler("tools/list", () => ({ tools }));

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    // A tool that does not exist is a protocol error, not a tool result: MCP
    // (revision 2025-11-25, server/tools, "Error Handling") lists unknown
    // tools among the JSON-RPC errors, its example -32602. Bad arguments to
    // a known tool stay a tool result (isError) the model can correct.
    if (!bridge.tools.get(name))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${JSON.stringify(name.slice(0, 200))}; tools/list names the tools`,
      );
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const hostCallId = meta?.[MCP_CALL_ID_META];
    const session = options.session?.();
    const callId = callIdOf(hostCallId, options.sessionScopedIds === true ? session : undefined, ctx.mcpReq.id);
    const client = clientOf(clientInfoOf(server, ctx), session);
    const progressToken = meta?.progressToken;

    const unsubscribe =
      typeof progressToken === "string" || typeof progressToken === "number"
        ? forwardProgress(bridge, callId, progressToken, ctx.mcpReq.notify, log)
        : undefined;
    options.onCallCount?.(1);
    try {
      // `signal` fires when the host cancels the request — notifications/cancelled,
      // or, on Streamable HTTP, the client dropping the request's response stream
      // (MCP 2026-07-28 counts a disconnect as cancellation of that request). Either
      // ends our waiting only: a motion already sent is not stopped (stop and HALT
      // do that), it settles by completion or observation, and its answer stays in
      // the ledger under the call id for the request the client re-issues.
      const [response] = await bridge.execute([{ id: callId, name, args: args ?? {} }], {
        signal: ctx.mcpReq.signal,
        client,
        ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
      });
      if (!response) throw new Error("the executor returned no response");
      // The era's codec shapes the result (identity for our object-shaped structuredContent).
      const result = server.projectCallToolResult(toCallToolResult(response), CALL_RESULT_OUTPUT_SCHEMA);
      const action = "action_id" in response.result ? response.result.action_id : undefined;
      log.info(
        {
          call_id: callId,
          tool: name,
          client: client.name,
          status: response.result.status,
          ...(action ? { action_id: action } : {}),
        },
        "mcp tool call answered",
      );
      return result;
    } finally {
      unsubscribe?.();
      options.onCallCount?.(-1);
    }
  });

  return server;
}

/** The tools/list answer: every tool of the registry with its schema as models see it. */
function toolsOf(bridge: BridgePort<ToolDefinition>): Tool[] {
  return bridge.tools.declarations().map((d) => {
    const def = bridge.tools.get(d.name);
    const schema = d.parametersJsonSchema;
    return {
      name: d.name,
      description: d.description,
      // MCP requires an object schema at the top; every armbridge tool takes an object.
      inputSchema: { ...schema, type: "object" },
      outputSchema: CALL_RESULT_OUTPUT_SCHEMA,
      ...(def ? { annotations: toolAnnotations(def) } : {}),
    };
  });
}

/** The host's own call id when it gave one, else one scoped to the session (when asked for and short enough), else a fresh one. */
function callIdOf(hostCallId: unknown, session: string | undefined, requestId: string | number): string {
  const scoped = session !== undefined ? mcpSessionCallId(session, requestId) : undefined;
  return typeof hostCallId === "string" && hostCallId.length > 0
    ? hostCallId
    : scoped !== undefined && scoped.length <= MAX_CALL_ID_LENGTH
      ? scoped
      : `mcp_${randomUUID()}`;
}

/** A request's notification channel to the host (`ctx.mcpReq.notify`). */
type ProgressSender = ServerContext["mcpReq"]["notify"];

/**
 * Progress notifications (queued → started → timed out) let a host show
 * what a long motion is doing, and reset its request timeout. Returns the unsubscribe.
 */
function forwardProgress(
  bridge: BridgePort<ToolDefinition>,
  callId: string,
  progressToken: string | number,
  notify: ProgressSender,
  log: Logger,
): () => void {
  let progress = 0;
  return bridge.onEvent((e) => {
    const text = progressText(e, callId);
    if (text === undefined) return;
    progress += 1;
    notify({
      method: "notifications/progress",
      params: { progressToken, progress, message: text },
    }).catch((error: unknown) => {
      log.debug({ call_id: callId, err: String(error) }, "progress notification not delivered");
    });
  });
}

/**
 * Who asked: on the 2026-07-28 protocol every request names its client in
 * `_meta` (the envelope the SDK lifts out); on 2025-11-25 the session's
 * `initialize` did.
 */
function clientInfoOf(server: Server, ctx: ServerContext): Implementation | undefined {
  const perRequest = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY];
  if (isImplementation(perRequest)) return perRequest;
  // The accessor is deprecated only for the 2026-07-28 era, answered above.
  return server.getClientVersion();
}

function isImplementation(value: unknown): value is Implementation {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string";
}

/** The MCP client as it named itself (`clientInfo`), in its session. */
function clientOf(
  info: { readonly name: string; readonly version?: string } | undefined,
  session: string | undefined,
): CallClient {
  const name = info ? `${info.name}${info.version ? ` ${info.version}` : ""}` : "unnamed MCP client";
  return normalizeClient({ kind: "mcp", name, session });
}

function progressText(e: ExecutorEvent, callId: string): string | undefined {
  switch (e.type) {
    case "queued":
      return e.callId === callId ? `queued for ${e.resources.join(", ")}` : undefined;
    case "started":
      return e.callId === callId ? `started action ${e.actionId} (waiting up to ${e.budgetMs} ms)` : undefined;
    case "timed_out":
      return e.callId === callId
        ? `wait timed out for action ${e.actionId}; observing the arm (the motion is not re-sent)`
        : undefined;
    case "paced":
      return e.callId === callId ? `action ${e.actionId}: the arm is ${paceWords(e.pace)}` : undefined;
    case "approval_requested":
      return e.callId === callId
        ? `waiting for an operator's approval (${e.approval.id}); nothing sent yet`
        : undefined;
    case "approval_resolved":
      return e.callId === callId
        ? `approval ${e.approval.decision}${e.approval.operator ? ` by ${e.approval.operator}` : ""}`
        : undefined;
    case "settled":
    case "action_resolved":
    case "halted":
    case "halt_released":
    case "link_returned":
    case "presence_changed":
      return undefined;
  }
}
