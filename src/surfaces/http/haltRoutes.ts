import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Bridge } from "../../bridge/Bridge.js";
import { normaliseOperatorName } from "../../ledger/operatorName.js";
import { haltView } from "./haltView.js";
import { parseInput } from "./parseInput.js";
import { requireKnownAxes } from "./requireKnownAxes.js";
import type { HaltAnswer, HaltReleaseAnswer } from "./wire/HaltView.js";

const haltBody = z.strictObject({
  /** Who pressed it, when known: HALT never waits for a name. */
  operator: z.string().max(200).optional(),
  note: z.string().max(2000).optional(),
  /** Axes to halt; omitted → every axis. The latch holds every axis either way. */
  joints: z.array(z.string().min(1).max(200)).min(1).max(65).optional(),
  /** Where it was pressed: the console, `armbridge halt`, or another HTTP client (default). */
  source: z.enum(["console", "cli", "http"]).optional(),
});

const releaseBody = z.strictObject({
  // Emptiness is the executor's rule (ARMB_ERR_OPERATOR_REQUIRED), checked in one place.
  operator: z.string().max(200),
  note: z.string().max(2000).optional(),
});

/**
 * `POST /v1/halt` (the console's HALT, `armbridge halt`): halts the arm at
 * once and latches the bridge; answers once the arm confirmed the halt, or
 * did not (then `halted: false` and the message says what to do).
 * `POST /v1/halt/release`: an operator's release of the latch, by name.
 */
export function registerHaltRoutes(app: FastifyInstance, bridge: Bridge): void {
  app.post("/v1/halt", async (request) => {
    const body = parseInput(haltBody, request.body ?? {}, "body");
    requireKnownAxes(bridge.config, body.joints, "body.joints");
    // HALT never waits for a name: one that is only invisible characters counts as none.
    const operator = body.operator === undefined ? undefined : normaliseOperatorName(body.operator);
    const { halt, result } = await bridge.executor.halt({ source: body.source ?? "http", operator, note: body.note, axes: body.joints });
    const what = body.joints ? body.joints.join(", ") : "all axes";
    const message = result.halted
      ? `The arm confirmed the halt of ${what}. The bridge is latched: every motion is refused until an operator releases it.`
      : `The halt of ${what} was NOT confirmed by the arm (${result.error?.message ?? "no answer in time"}). The arm may still be moving: check it now and use the emergency stop if it moves. The bridge is latched all the same.`;
    request.log.warn({ halt_id: halt.haltId, source: halt.source, operator, confirmed: result.halted }, "halt");
    const answer: HaltAnswer = { halted: result.halted, halt: haltView(halt), message };
    return answer;
  });

  app.post("/v1/halt/release", async (request) => {
    const body = parseInput(releaseBody, request.body, "body");
    const released = bridge.executor.releaseHalt({ operator: body.operator, note: body.note });
    const answer: HaltReleaseAnswer = {
      released: released.map(haltView),
      message: `Released by ${released[0]?.releasedBy ?? body.operator}: motion is accepted again.`,
    };
    return answer;
  });
}
