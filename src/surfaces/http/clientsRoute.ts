import type { FastifyInstance } from "fastify";
import type { Bridge } from "../../bridge/Bridge.js";
import type { ClientsList } from "../../wire/ClientView.js";

/** GET /v1/clients: who has sent motions, the most recent first, for the console's history filter. */
export function registerClientsRoute(app: FastifyInstance, bridge: Bridge): void {
  app.get("/v1/clients", async (): Promise<ClientsList> => ({
    clients: bridge.ledger
      .clients()
      .map((c) => ({ client: c.client, actions: c.actions, first_at: c.firstAt, last_at: c.lastAt })),
  }));
}
