import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { asArmbridgeError } from "../../errors.js";
import type { McpHttpSessions, McpHttpSessionsOptions } from "../mcp/McpHttpSessions.js";
import { httpStatusFor } from "./httpStatusFor.js";
import { holdOpen } from "./holdOpen.js";
import { serveRoute } from "./serveRoute.js";

/**
 * `/mcp`: MCP over Streamable HTTP on the bridge's own port, behind the same
 * bearer token and Host allow-list as every other route (the app's hooks run
 * first). The SDK's transport writes the response itself, so the reply is
 * hijacked; a call may stream for minutes (holdOpen). The MCP side (its SDK
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
    try {
      await (await opened()).handle(request.raw, reply.raw, request.body);
    } catch (error) {
      const e = asArmbridgeError(error);
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(httpStatusFor(e.code), { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: e.code, message: e.message } }));
      else reply.raw.destroy();
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
