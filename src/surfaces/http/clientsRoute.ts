import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import type { ClientsList } from "../../wire/ClientView.js";
import { serveRoute } from "./serveRoute.js";

/** GET /v1/clients: who has sent motions, the most recent first, for the console's history filter. */
export function registerClientsRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "clients", async (): Promise<ClientsList> => ({
    clients: bridge.actions
      .clients()
      .map((c) => ({ client: c.client, actions: c.actions, first_at: c.firstAt, last_at: c.lastAt })),
  }));
}
