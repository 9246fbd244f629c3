import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { haltView } from "./haltView.js";
import { parseInput } from "./parseInput.js";
import { readHaltBody, UnreadableBody } from "./readHaltBody.js";
import { serveRoute } from "./serveRoute.js";
import type { HaltAnswer, HaltReleaseAnswer } from "../../wire/HaltView.js";

const releaseBody = z.strictObject({
  // Emptiness is the executor's rule (ARMB_ERR_OPERATOR_REQUIRED), checked in one place.
  operator: z.string().max(200),
  note: z.string().max(2000).optional(),
});

/**
 * `POST /v1/halt` (the console's HALT, `armbridge halt`): halts the arm at
 * once and latches the bridge; answers once the arm confirmed the halt, or
 * did not (then `halted: false` and the message says what to do). A HALT is
 * never refused for how it was asked: a body that is not JSON, a joint the
 * arm lacks, an over-long name, an unknown field — what can be understood is
 * acted on first (every axis when the joints are unclear) and each problem is
 * in the answer's `problems`, coded, after the fact.
 * `POST /v1/halt/release`: an operator's release of the latch, by name.
 */
export function registerHaltRoutes(app: FastifyInstance, bridge: HostedBridgePort): void {
  // Its own scope, so that its body parser (which reads anything) is the HALT's alone.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, text, done) =>
      done(null, readJsonLeniently(String(text))),
    );
    serveRoute(scope, "halt", async (request) => haltNow(bridge, request));
  });

  serveRoute(app, "releaseHalt", async (request) => {
    const body = parseInput(releaseBody, request.body, "body");
    const released = bridge.operator.releaseHalt({ operator: body.operator, note: body.note });
    const answer: HaltReleaseAnswer = {
      released: released.map(haltView),
      message: `Released by ${released[0]?.releasedBy ?? body.operator}: motion is accepted again.`,
    };
    return answer;
  });
}

async function haltNow(bridge: HostedBridgePort, request: FastifyRequest): Promise<HaltAnswer> {
  const asked = readHaltBody(bridge.config, request.body);
  const { halt, result } = await bridge.operator.halt({
    source: asked.source,
    operator: asked.operator,
    note: asked.note,
    axes: asked.axes,
  });
  const what = asked.axes ? asked.axes.join(", ") : "all axes";
  const confirmed = result.halted
    ? `The arm confirmed the halt of ${what}. The bridge is latched: every motion is refused until an operator releases it.`
    : `The halt of ${what} was NOT confirmed by the arm (${result.error?.message ?? "no answer in time"}). The arm may still be moving: check it now and use the emergency stop if it moves. The bridge is latched all the same.`;
  const problems =
    asked.problems.length === 0
      ? ""
      : ` The request had ${asked.problems.length} problem(s), acted around (see problems): ${asked.problems.map((p) => p.code).join(", ")}.`;
  request.log.warn(
    {
      halt_id: halt.haltId,
      source: halt.source,
      operator: asked.operator,
      confirmed: result.halted,
      problems: asked.problems,
    },
    "halt",
  );
  return {
    halted: result.halted,
    halt: haltView(halt),
    message: confirmed + problems,
    ...(asked.problems.length > 0 ? { problems: [...asked.problems] } : {}),
  };
}

/** JSON when it is JSON; an empty body is no body; anything else is an UnreadableBody the HALT reports after acting. */
function readJsonLeniently(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new UnreadableBody(`not JSON (${error instanceof Error ? error.message.slice(0, 120) : "unreadable"})`);
  }
}
