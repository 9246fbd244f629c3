import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  ROUTES,
  type JsonRouteName,
  type RouteAnswer,
  type RouteAuth,
  type RouteInput,
  type RouteName,
} from "../../wire/routes.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Who may call the route (the table's word): the auth hook reads it; a path no route answers counts as `api`. */
    auth?: RouteAuth;
  }
}

/** The router fills every `:name` of the path, so a handler sees them as the table's parameters, not yet checked. */
type ParamsOf<N extends RouteName> = RouteInput<N> extends { params: infer P } ? P : unknown;

/**
 * What the handler gets: the path parameters typed by the table; the query
 * and the body as they came, because the server parses them with its own
 * stricter schemas (limits, the arm's joint names) and a HALT reads anything.
 */
export type RouteRequest<N extends RouteName> = FastifyRequest<{
  Params: ParamsOf<N>;
  Querystring: unknown;
  Body: unknown;
}>;

/** The server's views are read-only all the way down; the table's parsed answers are not. */
type ReadOnly<T> = T extends readonly (infer E)[]
  ? readonly ReadOnly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadOnly<T[K]> }
    : T;

/** A JSON route answers the table's response (or sends its own reply, e.g. a 503); a raw one writes the reply itself. */
type ReplyOf<N extends RouteName> = N extends JsonRouteName
  ? ReadOnly<RouteAnswer<N>> | FastifyReply
  : FastifyReply | void;

export type RouteHandler<N extends RouteName> = (
  request: RouteRequest<N>,
  reply: FastifyReply,
) => ReplyOf<N> | Promise<ReplyOf<N>>;

/** Registers route `name` of the wire table: its method, path and who may call it come from the table alone. */
export function serveRoute<N extends RouteName>(app: FastifyInstance, name: N, handler: RouteHandler<N>): void {
  const spec = ROUTES[name];
  app.route({
    method: spec.method,
    url: spec.path,
    config: { auth: spec.auth },
    // Fastify's handler type knows nothing of the table; the request it passes has exactly this shape.
    handler: handler as unknown as (request: FastifyRequest, reply: FastifyReply) => unknown,
  });
}
