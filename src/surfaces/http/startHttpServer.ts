import type { RequestListener } from "node:http";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from "fastify";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import { registerActionsRoutes } from "./actionsRoutes.js";
import { registerApprovalsRoutes } from "./approvalsRoutes.js";
import { registerArmDescriptionRoute } from "./armDescriptionRoute.js";
import { registerArmVolumesRoute } from "./armVolumesRoute.js";
import { bearerChallenge, credentialOf, generateToken } from "./bearerToken.js";
import { bindHttpPort, type BoundHttpPort, type HttpPortLimits } from "./bindHttpPort.js";
import { registerCallsRoute } from "./callsRoute.js";
import { registerCameraRoutes } from "./cameraRoutes.js";
import { registerCardFramesRoutes } from "./cardFramesRoutes.js";
import { ActionFrameRecorder } from "./ActionFrameRecorder.js";
import type { ActionFramesLimits } from "../../cameras/ActionFrames.js";
import { registerClientsRoute } from "./clientsRoute.js";
import { registerConsoleRoute } from "./consoleRoute.js";
import { registerEventsRoute } from "./eventsRoute.js";
import { EventStreamHub, type EventStreamHubOptions } from "./EventStreamHub.js";
import { registerHaltRoutes } from "./haltRoutes.js";
import { registerHealthzRoute } from "./healthzRoute.js";
import { HostAllowList } from "./hostAllowList.js";
import { httpStatusFor } from "./httpStatusFor.js";
import { registerMcpRoute } from "./mcpRoute.js";
import type { McpHttpSessionsOptions } from "../mcp/McpHttpSessions.js";
import { registerMetricsRoute } from "./metricsRoute.js";
import { registerPresenceRoutes } from "./presenceRoutes.js";
import "./serveRoute.js";
import { securityReport, type SecurityReport } from "./securityReport.js";
import { registerSecurityRoute } from "./securityRoute.js";
import { registerArmRecoveryRoute, registerServosRoute } from "./servosRoute.js";
import { registerStateRoute } from "./stateRoute.js";
import { registerToolsRoute } from "./toolsRoute.js";
import { apiErrorBody } from "./apiErrorBody.js";

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface HttpAppOptions {
  /** The API's bearer token (agents, MCP clients, scripts): every route but /healthz, /console and the operator's. */
  readonly token: string;
  /**
   * The operator's token (the console's): every route, the operator's too
   * (presence heartbeats, approval decisions). Default: a fresh one, in
   * `RunningHttpServer.operatorToken` / `operatorTokenOf(app)`. Must differ from `token`.
   */
  readonly operatorToken?: string | undefined;
  /** Largest request body in bytes (default 64 KiB). */
  readonly bodyLimit?: number | undefined;
  /** Default: the bridge's logger. */
  readonly logger?: Logger | undefined;
  readonly events?: EventStreamHubOptions | undefined;
  /** The address the server is bound to (default 127.0.0.1): its Host name is allowed, and a wide one is warned about. */
  readonly bindHost?: string | undefined;
  /** More Host header names to answer to (serve --allow-host); loopback names and the bind address always are. */
  readonly allowHosts?: readonly string[] | undefined;
  /** The server's own request handler goes here instead of a server fastify creates (a port bound before the bridge). */
  readonly port?: BoundHttpPort | undefined;
  /** MCP over Streamable HTTP at /mcp (sessions open at once, each call's deadline). */
  readonly mcp?: McpHttpSessionsOptions | undefined;
  /** How many calls' camera frames serve keeps for the operator's cards (default 32 calls, 32 MiB). */
  readonly cardFrames?: ActionFramesLimits | undefined;
}

export interface HttpServerOptions extends Omit<HttpAppOptions, "port" | "bindHost"> {
  /** Connection cap and request timeouts (bindHttpPort's defaults: a few seconds). */
  readonly limits?: HttpPortLimits | undefined;
  /** Default 127.0.0.1: the API moves an arm, so it is not on the network unless asked. */
  readonly host?: string | undefined;
  /** 0 picks any free port. */
  readonly port: number;
}

export interface RunningHttpServer {
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** What GET /v1/security answers: bind, allowed Host names, warnings. */
  readonly security: SecurityReport;
  /** The operator's token (given, or made at start): the console link carries it. */
  readonly operatorToken: string;
  close(): Promise<void>;
}

/** The app without a socket: routes, auth, errors. Tests drive it with `inject`. */
export async function buildHttpApp(bridge: HostedBridgePort, options: HttpAppOptions): Promise<FastifyInstance> {
  const operatorToken = checkedTokens(options);
  const bindHost = options.port?.host ?? options.bindHost ?? "127.0.0.1";
  const hosts = new HostAllowList({ bindHost, extra: options.allowHosts });
  const security = securityReport({ bindHost, token: options.token, hosts });
  const port = options.port;
  let portHandler: RequestListener | undefined;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  // Typed as fastify's base logger: with a pino Logger fastify infers a
  // Logger-specific instance type that the route registrars would not accept.
  const log: FastifyBaseLogger = (options.logger ?? bridge.logger).child({ component: "http" });
  const app = Fastify({
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    return503OnClosing: true,
    // The port answers "starting" until the app is ready, then hands its requests over.
    ...(port ? { serverFactory: (handler: RequestListener) => ((portHandler = handler), port.server) } : {}),
    // Malformed URLs and over-long path parameters are refused by the router
    // before any route runs: answer them in our error shape too.
    frameworkErrors: (error, _request, reply) => {
      const e = new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", { issues: error.message });
      // Typed loosely by fastify for framework errors; this is a plain JSON reply.
      void (reply as unknown as FastifyReply)
        .status(error.statusCode ?? 400)
        .send({ error: { code: e.code, message: e.message } });
    },
  });
  guardRequests(app, hosts, { api: options.token, operator: operatorToken });
  logRequests(app);
  answerErrors(app, bodyLimit);
  registerRoutes(app, bridge, options, security);
  app.decorate(SECURITY, security);
  app.decorate(OPERATOR_TOKEN, operatorToken);
  await app.ready();
  if (port && portHandler) port.serveWith(portHandler);
  return app;
}

/** The operator token to serve with (given, or made now), once both tokens are known to be usable. */
function checkedTokens(options: HttpAppOptions): string {
  if (options.token.length === 0)
    throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: "the HTTP token must not be empty" });
  const operatorToken = options.operatorToken ?? generateToken();
  if (operatorToken.length === 0)
    throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: "the operator token must not be empty" });
  // The same string for both would give every agent the operator's word.
  if (operatorToken === options.token)
    throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: "the operator token must differ from the API token" });
  return operatorToken;
}

/** Host and Origin first, then the bearer token each route's `auth` in the wire table asks for. */
function guardRequests(app: FastifyInstance, hosts: HostAllowList, tokens: { api: string; operator: string }): void {
  // First, on every route (the public ones and unknown paths too): a page
  // that rebound its own name to this address must get nothing at all.
  app.addHook("onRequest", async (request) => {
    if (!hosts.allows(request.headers.host)) {
      throw new ArmbridgeError("ARMB_ERR_HTTP_HOST_NOT_ALLOWED", {
        host: JSON.stringify(request.headers.host ?? ""),
        allowed: hosts.names.join(", "),
      });
    }
    if (!hosts.allowsOrigin(request.headers.origin, request.headers.host)) {
      throw new ArmbridgeError("ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED", {
        origin: JSON.stringify(request.headers.origin ?? "").slice(0, 200),
      });
    }
  });
  app.addHook("onRequest", async (request) => {
    const auth = request.routeOptions.config.auth;
    if (auth === "public") return;
    const credential = credentialOf(request.headers.authorization, tokens);
    if (credential === undefined) throw new ArmbridgeError("ARMB_ERR_HTTP_UNAUTHORIZED");
    if (auth === "operator" && credential !== "operator") {
      throw new ArmbridgeError("ARMB_ERR_HTTP_OPERATOR_ONLY", {
        method: request.method,
        url: request.url.split("?")[0],
      });
    }
  });
}

/** One line per request, without the fastify default pair: reads are debug (the console and scrapers poll), changes and errors are info. */
function logRequests(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    const level = request.method === "GET" && reply.statusCode < 400 ? "debug" : "info";
    request.log[level](
      {
        method: request.method,
        url: request.url.split("?")[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      "request",
    );
  });
}

/** Every refusal and failure in the one error shape, with the status its code has. */
function answerErrors(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError | ArmbridgeError, request, reply) => {
    const e = toArmbridgeError(error, bodyLimit);
    const status = error instanceof ArmbridgeError ? httpStatusFor(e.code) : fastifyStatus(error, e);
    if (status >= 500) request.log.error({ err: e.toJSON() }, "request failed");
    // A caller without the token, or asking by a name we do not answer to, gets its answer and no
    // kept-alive connection to try again on (a body it is still sending is not read).
    if (CLOSE_AFTER.has(e.code)) void reply.header("connection", "close");
    if (e.code === "ARMB_ERR_HTTP_UNAUTHORIZED")
      void reply.header("www-authenticate", bearerChallenge(request.headers.authorization));
    return reply.status(status).send(apiErrorBody(e));
  });
  app.setNotFoundHandler((request, reply) => {
    const e = new ArmbridgeError("ARMB_ERR_HTTP_NOT_FOUND", { method: request.method, url: request.url.split("?")[0] });
    return reply.status(404).send({ error: { code: e.code, message: e.message } });
  });
}

function registerRoutes(
  app: FastifyInstance,
  bridge: HostedBridgePort,
  options: HttpAppOptions,
  security: SecurityReport,
): void {
  const hub = new EventStreamHub(bridge, {
    logger: (options.logger ?? bridge.logger).child({ component: "events" }),
    ...options.events,
  });
  // Streams are ended before the server waits for its connections to drain.
  app.addHook("preClose", async () => hub.close());
  const recorder = new ActionFrameRecorder(bridge, {
    logger: (options.logger ?? bridge.logger).child({ component: "card-frames" }),
    limits: options.cardFrames,
  });
  app.addHook("onClose", async () => recorder.close());
  registerHealthzRoute(app, bridge);
  registerConsoleRoute(app);
  registerToolsRoute(app, bridge);
  registerCallsRoute(app, bridge);
  registerActionsRoutes(app, bridge);
  registerClientsRoute(app, bridge);
  registerServosRoute(app, bridge);
  registerArmRecoveryRoute(app, bridge);
  registerHaltRoutes(app, bridge);
  registerPresenceRoutes(app, bridge);
  registerCameraRoutes(app, bridge);
  registerCardFramesRoutes(app, recorder);
  registerApprovalsRoutes(app, bridge);
  registerStateRoute(app, bridge);
  registerArmDescriptionRoute(app, bridge);
  registerArmVolumesRoute(app, bridge);
  registerEventsRoute(app, hub);
  registerMetricsRoute(app, bridge);
  registerSecurityRoute(app, security);
  registerMcpRoute(app, bridge, { logger: options.logger ?? bridge.logger, ...options.mcp });
}

const SECURITY = "armbridgeSecurity";
const OPERATOR_TOKEN = "armbridgeOperatorToken";

/** The operator token an app was built with (given, or made at start). */
export function operatorTokenOf(app: FastifyInstance): string {
  return app.getDecorator<string>(OPERATOR_TOKEN);
}

/** Refusals after which the connection is closed once the answer is sent. */
const CLOSE_AFTER: ReadonlySet<string> = new Set([
  "ARMB_ERR_HTTP_UNAUTHORIZED",
  "ARMB_ERR_HTTP_HOST_NOT_ALLOWED",
  "ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED",
]);

/**
 * Serves the app on a port bound beforehand (`bindHttpPort`), so that a
 * caller can bind, then start the bridge, then serve. Closing ends the app
 * (streams first) and then the port.
 */
export async function serveHttpOnPort(
  bridge: HostedBridgePort,
  port: BoundHttpPort,
  options: Omit<HttpAppOptions, "port" | "bindHost">,
): Promise<RunningHttpServer> {
  let app: FastifyInstance;
  try {
    app = await buildHttpApp(bridge, { ...options, port });
  } catch (error) {
    await port.close();
    throw asArmbridgeError(error);
  }
  let closing: Promise<void> | undefined;
  return {
    url: port.url,
    app,
    security: app.getDecorator<SecurityReport>(SECURITY),
    operatorToken: operatorTokenOf(app),
    // fastify does not close a server it did not listen on itself.
    close: () => (closing ??= app.close().finally(() => port.close())),
  };
}

/** Binds the app (127.0.0.1 by default) and returns its URL and an idempotent close. */
export async function startHttpServer(
  bridge: HostedBridgePort,
  options: HttpServerOptions,
): Promise<RunningHttpServer> {
  const port = await bindHttpPort({ host: options.host ?? "127.0.0.1", port: options.port, ...options.limits });
  return serveHttpOnPort(bridge, port, options);
}

function toArmbridgeError(error: FastifyError | ArmbridgeError, bodyLimit: number): ArmbridgeError {
  if (error instanceof ArmbridgeError) return error;
  if (error.statusCode === 413)
    return new ArmbridgeError("ARMB_ERR_HTTP_BODY_TOO_LARGE", { limit: bodyLimit }, { cause: error });
  // fastify's own 4xx: unparsable JSON, empty JSON body, unsupported media type.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", { issues: error.message }, { cause: error });
  }
  return asArmbridgeError(error);
}

function fastifyStatus(error: FastifyError, e: ArmbridgeError): number {
  const s = error.statusCode;
  return s !== undefined && s >= 400 && s < 500 ? s : httpStatusFor(e.code);
}
