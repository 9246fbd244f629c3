import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { normaliseOperatorName, OPERATOR_NAME_RULE } from "../../bridge/portVocabulary.js";
import { parseInput } from "./parseInput.js";
import { requireKnownAxes } from "./requireKnownAxes.js";
import { serveRoute } from "./serveRoute.js";

const recoverBody = z.strictObject({
  /** Axes (joint or gripper names) to recover; omitted → every servo that shut down. */
  joints: z.array(z.string().min(1).max(200)).min(1).max(64).optional(),
  operator: z
    .string()
    .max(200)
    .transform(
      (name, ctx) =>
        normaliseOperatorName(name) ??
        (ctx.addIssue({ code: "custom", message: `say who is recovering the servo: ${OPERATOR_NAME_RULE}` }), z.NEVER),
    ),
  note: z.string().max(2000).optional(),
});

const armRecoverBody = z.strictObject({
  operator: recoverBody.shape.operator,
  note: z.string().max(2000).optional(),
  /** false or omitted: only the steps, for the operator to read before saying yes. */
  run: z.boolean().optional(),
});

/** Three steps of a few seconds each (FrankaRecovery's per-step bound is 10 s). */
const ARM_RECOVER_TIMEOUT_MS = 35_000;

/** How long one recovery request may take: a reboot per servo plus the wait for each to answer again. */
const RECOVER_TIMEOUT_MS = 20_000;

/**
 * `POST /v1/servos/recover`: the operator's step after a servo shut down on a
 * hardware error (overload, overheating, voltage). Deliberate and named: the
 * bridge never does this on its own, because the cause — something blocking
 * the arm, a person included — is at the arm, where only a person can see it.
 */
export function registerServosRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "recoverServos", async (request) => {
    const body = parseInput(recoverBody, request.body, "body");
    const recoverServos = bridge.operator.servoRecovery();
    requireKnownAxes(bridge.config, body.joints, "body.joints");
    const results = await recoverServos({
      ...(body.joints ? { axes: body.joints } : {}),
      signal: AbortSignal.timeout(RECOVER_TIMEOUT_MS),
    });
    request.log.warn({ operator: body.operator, note: body.note, results }, "operator recovered servos");
    // Plain copies: the wire's schema is an open object, which a declared interface is not.
    return { operator: body.operator, results: results.map((r) => ({ ...r })) };
  });
}

/**
 * `POST /v1/arm/recover` (operator token): the steps that bring the arm back
 * after its own safety system took its controllers down (an FR3 reflex).
 * Without `run: true` it only lists them; with it, runs them in order, each
 * only after the one before succeeded. The HALT the stop latched stays: the
 * operator releases it once the arm is seen to be back.
 */
export function registerArmRecoveryRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "recoverArm", async (request) => {
    const body = parseInput(armRecoverBody, request.body, "body");
    const recovery = bridge.operator.armRecovery();
    if (body.run !== true)
      return { operator: body.operator, ran: false, steps: recovery.plan().map((s) => ({ ...s })) };
    const steps = await recovery.run(AbortSignal.timeout(ARM_RECOVER_TIMEOUT_MS));
    request.log.warn({ operator: body.operator, note: body.note, steps }, "operator ran the arm's recovery");
    return { operator: body.operator, ran: true, steps: steps.map((s) => ({ ...s })) };
  });
}
