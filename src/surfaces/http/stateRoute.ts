import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { armStateView } from "./armStateView.js";
import { serveRoute } from "./serveRoute.js";

/** GET /v1/state — pose, moving axes, staleness, faults, quarantine, actions awaiting an operator. */
export function registerStateRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "state", async () => armStateView(bridge));
}
