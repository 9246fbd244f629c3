import type { FastifyInstance } from "fastify";
import type { SecurityReport } from "./securityReport.js";
import { serveRoute } from "./serveRoute.js";

/** GET /v1/security — bind address, allowed Host names and warnings (a wide bind, a short token) for a console banner. */
export function registerSecurityRoute(app: FastifyInstance, report: SecurityReport): void {
  serveRoute(app, "security", async () => report);
}
