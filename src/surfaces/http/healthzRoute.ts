import type { FastifyInstance } from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { serveRoute } from "./serveRoute.js";

/**
 * GET /healthz — for supervisors; needs no token, so it says nothing about the
 * arm. 200 `{status:"ok"}` while the bridge can accept motion; 503
 * `{status:"unhealthy", code, reason}` once it cannot (its ledger file was
 * deleted or replaced: ARMB_ERR_LEDGER_LOST), so a supervisor restarts it or
 * calls someone. The reason carries no file path (the route is public).
 */
export function registerHealthzRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "healthz", async (_request, reply) => {
    const loss = bridge.ledgerLoss();
    if (!loss) return { status: "ok" };
    return reply.status(503).send({
      status: "unhealthy",
      code: loss.error.code,
      reason:
        "the intent ledger file was deleted or replaced while the bridge ran; no motion is accepted until it is restarted",
      since: new Date(loss.detectedAt).toISOString(),
    });
  });
}
