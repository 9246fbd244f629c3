import type { FastifyInstance } from "fastify";
import { PUBLIC_ROUTE } from "./publicRoute.js";

/** GET /healthz — liveness for supervisors; needs no token and so says nothing about the arm. */
export function registerHealthzRoute(app: FastifyInstance): void {
  app.get("/healthz", PUBLIC_ROUTE, async () => ({ status: "ok" }));
}
