import type { FastifyInstance } from "fastify";
import type { Bridge } from "../../bridge/Bridge.js";

/** GET /v1/tools — exactly the function declarations sent to models (no local policy). */
export function registerToolsRoute(app: FastifyInstance, bridge: Bridge): void {
  app.get("/v1/tools", async () => ({ functionDeclarations: bridge.registry.declarations() }));
}
