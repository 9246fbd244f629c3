import type { FastifyInstance } from "fastify";
import type { EventStreamHub } from "./EventStreamHub.js";
import { serveRoute } from "./serveRoute.js";

/**
 * GET /v1/events — Server-Sent Events (`state`, `executor`). Authenticated by
 * the Authorization header like every other route: the console reads it with
 * fetch streaming rather than EventSource, so the token never travels in a URL
 * (where it would land in logs, history and Referer headers).
 * Over the hub's stream cap: 503 ARMB_ERR_HTTP_TOO_MANY_STREAMS.
 */
export function registerEventsRoute(app: FastifyInstance, hub: EventStreamHub): void {
  serveRoute(app, "events", (_request, reply) => {
    // Before hijack, so a refusal goes through the error handler in the JSON error shape.
    hub.admit();
    reply.hijack();
    hub.attach(reply.raw);
  });
}
