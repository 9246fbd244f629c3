import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { asArmbridgeError } from "../../errors.js";
import { McpHttpSessions, type McpHttpSessionsOptions } from "../mcp/McpHttpSessions.js";
import { httpStatusFor } from "./httpStatusFor.js";
import { holdOpen } from "./holdOpen.js";

/**
 * `/mcp`: MCP over Streamable HTTP on the bridge's own port, behind the same
 * bearer token and Host allow-list as every other route (the app's hooks run
 * first). The SDK's transport writes the response itself, so the reply is
 * hijacked; a call may stream for minutes (holdOpen).
 */
export function registerMcpRoute(
  app: FastifyInstance,
  bridge: HostedBridgePort,
  options: McpHttpSessionsOptions,
): McpHttpSessions {
  const sessions = new McpHttpSessions(bridge, options);
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    holdOpen(request, reply);
    reply.hijack();
    try {
      await sessions.handle(request.raw, reply.raw, request.body);
    } catch (error) {
      const e = asArmbridgeError(error);
      if (!reply.raw.headersSent)
        reply.raw
          .writeHead(httpStatusFor(e.code), { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: e.code, message: e.message } }));
      else reply.raw.destroy();
    }
  };
  app.post("/mcp", handler);
  app.get("/mcp", handler);
  app.delete("/mcp", handler);
  app.addHook("preClose", async () => sessions.close());
  return sessions;
}
