import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { serveRoute } from "./serveRoute.js";

/** GET /metrics — Prometheus text: per-tool duration histograms, outcomes, timeout share. */
export function registerMetricsRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "metrics", async (_request, reply) => {
    return reply.type("text/plain; version=0.0.4; charset=utf-8").send(bridge.metrics.toPrometheus());
  });
}
