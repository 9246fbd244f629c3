import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { ArmbridgeError } from "../../errors.js";
import { parseInput } from "./parseInput.js";
import { consoleTag, presenceView } from "./presenceView.js";
import { serveRoute } from "./serveRoute.js";
import type { PresenceView } from "../../wire/PresenceView.js";

const heartbeatBody = z.strictObject({
  /** The console page's own id for its life (random): each open console counts once. */
  session: z
    .string()
    .min(8)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only"),
  /** The name the operator typed; absent or blank while they have not (then the console is open but nobody is named). */
  operator: z.string().max(200).optional(),
  /** The page is closing: its presence ends now instead of after timeout_ms. */
  leaving: z.boolean().optional(),
});

/**
 * Hold-to-run (config `operator_presence`): `GET /v1/presence` says how it
 * stands (any token); `POST /v1/presence` is an open console's heartbeat,
 * with the operator's name, and takes the operator token only: a heartbeat
 * says a person watches the arm, which an agent holding the API token must
 * not be able to claim (ARMB_ERR_HTTP_OPERATOR_ONLY). A console is known by
 * the session id it beats with, which is listed to others only as a tag, and
 * the consoles counted are bounded (ARMB_ERR_PRESENCE_CONSOLES_FULL). A
 * bridge without presence refuses the heartbeat
 * (ARMB_ERR_PRESENCE_NOT_REQUIRED) and answers GET with `required: false`.
 */
export function registerPresenceRoutes(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "presence", async (): Promise<PresenceView> => presenceView(bridge));

  serveRoute(app, "presenceBeat", async (request): Promise<PresenceView> => {
    const presence = bridge.operator.presence;
    if (!presence) throw new ArmbridgeError("ARMB_ERR_PRESENCE_NOT_REQUIRED");
    const body = parseInput(heartbeatBody, request.body, "body");
    if (body.leaving === true) presence.leave(body.session);
    else presence.beat(body.session, body.operator);
    return { ...presenceView(bridge), yours: consoleTag(body.session) };
  });
}
