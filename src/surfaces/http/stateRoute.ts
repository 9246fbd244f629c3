import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { armStateView } from "./armStateView.js";

/** GET /v1/state — pose, moving axes, staleness, faults, quarantine, actions awaiting an operator. */
export function registerStateRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  app.get("/v1/state", async () => armStateView(bridge));
}
