import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";

/** GET /v1/tools — exactly the function declarations sent to models (no local policy). */
export function registerToolsRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  app.get("/v1/tools", async () => ({ functionDeclarations: bridge.tools.declarations() }));
}
