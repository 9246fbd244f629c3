import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { asArmbridgeError } from "../../errors.js";
import type { McpHttpSessions, McpHttpSessionsOptions } from "../mcp/McpHttpSessions.js";
import { httpStatusFor } from "./httpStatusFor.js";
import { callerGone, holdOpen } from "./holdOpen.js";
import { serveRoute } from "./serveRoute.js";
import { sendWebResponse, toWebRequest } from "./webExchange.js";

/**
 * `/mcp`: MCP over Streamable HTTP on the bridge's own port, a route of
 * serve's own fastify app behind the same bearer token, Host allow-list and
 * Origin check as every other route (the app's hooks run first, so a foreign
 * Origin is refused before any MCP session opens). The SDK answers with a
 * web `Response`, written on the hijacked reply as it streams; a call may
 * stream for minutes (holdOpen). A client that goes away aborts its request
 * (callerGone): on the 2026-07-28 protocol that is the request's
 * cancellation, which ends our waiting and never the motion. The MCP side (its SDK
 * and schemas, a large graph of modules) is loaded on the first /mcp request,
 * not at start: a bridge comes back from a crash sooner, and one nobody
 * reaches over MCP never pays for it.
 */
export function registerMcpRoute(
  app: FastifyInstance,
  bridge: HostedBridgePort,
  options: McpHttpSessionsOptions,
): void {
  let sessions: Promise<McpHttpSessions> | undefined;
  const opened = (): Promise<McpHttpSessions> =>
    (sessions ??= import("../mcp/McpHttpSessions.js").then((m) => new m.McpHttpSessions(bridge, options)));
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    holdOpen(request, reply);
    reply.hijack();
    const gone = callerGone(reply);
    try {
      const response = await (await opened()).handle(toWebRequest(request, gone.signal), request.body);
      await sendWebResponse(reply.raw, response);
    } catch (error) {
      const e = asArmbridgeError(error);
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(httpStatusFor(e.code), { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: e.code, message: e.message } }));
      else reply.raw.destroy();
    } finally {
      gone.dispose();
    }
  };
  serveRoute(app, "mcpPost", handler);
  serveRoute(app, "mcpGet", handler);
  serveRoute(app, "mcpDelete", handler);
  app.addHook("preClose", async () => {
    const open = await sessions?.catch(() => undefined);
    await open?.close();
  });
}
