import type { FastifyInstance } from "fastify";
import { consolePage } from "./consolePage.js";
import { serveRoute } from "./serveRoute.js";

/**
 * GET /console — the operator page. Served without a token because a browser
 * cannot attach one to a page load; the page holds no data, and reads the
 * token from the URL fragment (never sent to the server) for its API calls.
 */
export function registerConsoleRoute(app: FastifyInstance): void {
  serveRoute(app, "console", async (_request, reply) => {
    const page = consolePage();
    return reply
      .type("text/html; charset=utf-8")
      .header("content-security-policy", page.contentSecurityPolicy)
      .header("cache-control", "no-store")
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .send(page.html);
  });
}
