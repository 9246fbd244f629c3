import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { parseInput } from "./parseInput.js";
import { serveRoute } from "./serveRoute.js";
import type { ApprovalsList, DecidedApprovalView } from "../../wire/ApprovalView.js";

const idParams = z.strictObject({ id: z.string().min(1).max(200) });

const decisionBody = z.strictObject({
  // Emptiness is the desk's rule (ARMB_ERR_APPROVAL_OPERATOR_REQUIRED), so it is checked in one place.
  operator: z.string().max(200),
  note: z.string().max(2000).optional(),
});

/**
 * The approval gate (config `approval`): calls waiting, holding their locks
 * with nothing sent, for an operator's approve or decline.
 * Unknown id → 404 ARMB_ERR_APPROVAL_NOT_FOUND; already ended → 409 ARMB_ERR_APPROVAL_DECIDED.
 * Deciding takes the operator token: an agent holding the API token could
 * otherwise approve its own motions (403 ARMB_ERR_HTTP_OPERATOR_ONLY).
 */
export function registerApprovalsRoutes(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "approvals", async (): Promise<ApprovalsList> => ({
    approvals: bridge.operator.approvals.pending(),
  }));

  serveRoute(app, "approve", async (request) => {
    const { id } = parseInput(idParams, request.params, "params");
    const body = parseInput(decisionBody, request.body, "body");
    const decided: DecidedApprovalView = bridge.operator.approvals.approve(id, {
      operator: body.operator,
      note: body.note,
    });
    return decided;
  });

  serveRoute(app, "decline", async (request) => {
    const { id } = parseInput(idParams, request.params, "params");
    const body = parseInput(decisionBody, request.body, "body");
    const decided: DecidedApprovalView = bridge.operator.approvals.decline(id, {
      operator: body.operator,
      note: body.note,
    });
    return decided;
  });
}
