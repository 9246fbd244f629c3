import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { serveRoute } from "./serveRoute.js";

/** GET /v1/tools — exactly the function declarations sent to models (no local policy). */
export function registerToolsRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "tools", async () => ({ functionDeclarations: bridge.tools.declarations() }));
}
