import type { FastifyInstance } from "fastify";
import type { EventStreamHub } from "./EventStreamHub.js";

/**
 * GET /v1/events — Server-Sent Events (`state`, `executor`). Authenticated by
 * the Authorization header like every other route: the console reads it with
 * fetch streaming rather than EventSource, so the token never travels in a URL
 * (where it would land in logs, history and Referer headers).
 */
export function registerEventsRoute(app: FastifyInstance, hub: EventStreamHub): void {
  app.get("/v1/events", (_request, reply) => {
    reply.hijack();
    hub.attach(reply.raw);
  });
}
