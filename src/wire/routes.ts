import * as z from "zod/mini";
import { ACTION_VIEW, ACTIONS_PAGE } from "./ActionView.js";
import { APPROVALS_LIST, DECIDED_APPROVAL_VIEW } from "./ApprovalView.js";
import { ARM_DESCRIPTION_VIEW } from "./ArmDescriptionView.js";
import { ARM_STATE_VIEW } from "./ArmStateView.js";
import { CALL_ANSWER, CALLS_CANCELLED, CALLS_RESPONSE } from "./CallResultView.js";
import { CAMERAS_LIST, CARD_FRAMES_LIST, TABLE_POINT_VIEW } from "./CameraView.js";
import { CLIENTS_LIST } from "./ClientView.js";
import { EXECUTOR_EVENT_VIEW } from "./ExecutorEventView.js";
import { PLACED_VOLUMES_VIEW } from "./EnvelopeView.js";
import { HALT_ANSWER, HALT_RELEASE_ANSWER } from "./HaltView.js";
import { MAX_BATCH } from "./limits.js";
import { PRESENCE_VIEW } from "./PresenceView.js";
import { SECURITY_REPORT } from "./SecurityReport.js";
import { CLIENT_KINDS } from "./vocabulary.js";

/**
 * What an answer is when it is not one JSON document: a stream of
 * server-sent events, bytes (a camera frame), text (metrics), an HTML page,
 * or a protocol that reads its own answers (MCP over Streamable HTTP).
 */
export type RawAnswer = "events" | "bytes" | "text" | "html" | "protocol";

/** Who may call a route: anyone (it reveals nothing about the arm), the API token, or the operator's token only. */
export type RouteAuth = "public" | "api" | "operator";

export interface RouteSpec {
  readonly method: "GET" | "POST" | "DELETE";
  readonly path: string;
  readonly auth: RouteAuth;
  readonly params?: z.ZodMiniType;
  readonly query?: z.ZodMiniType;
  /** What a client sends. The server parses it again with its own stricter rules (names of the arm's joints, …). */
  readonly body?: z.ZodMiniType;
  readonly response: z.ZodMiniType | RawAnswer;
  /** Registry codes this route answers beyond the ones every route may (unauthorized, bad request, starting, …). */
  readonly errors: readonly string[];
}

const id = z.strictObject({ id: z.string() });
const idWhich = z.strictObject({ id: z.string(), which: z.string() });
const camera = z.strictObject({ name: z.string() });
const operatorNote = z.object({ operator: z.string(), note: z.optional(z.string()) });

const functionDeclaration = z.strictObject({
  name: z.string(),
  description: z.string(),
  parametersJsonSchema: z.record(z.string(), z.unknown()),
  behavior: z.exactOptional(z.enum(["BLOCKING", "NON_BLOCKING"])),
});

/** A call as a client sends it: a Gemini functionCall, its id optional. */
const CALL_INPUT = z.object({ id: z.optional(z.string()), name: z.string(), args: z.optional(z.unknown()) });

/**
 * Every route `armbridge serve` answers: its method and path (written here
 * and nowhere else), what it takes and what it answers. The server registers
 * each handler through this table (src/surfaces/http/serveRoute.ts) and
 * ArmbridgeClient calls through it, so a path or a shape has one definition.
 */
export const ROUTES = {
  healthz: {
    method: "GET",
    path: "/healthz",
    auth: "public",
    response: z.looseObject({ status: z.enum(["ok", "unhealthy"]) }),
    errors: [],
  },
  console: { method: "GET", path: "/console", auth: "public", response: "html", errors: [] },
  metrics: { method: "GET", path: "/metrics", auth: "api", response: "text", errors: [] },
  security: { method: "GET", path: "/v1/security", auth: "api", response: SECURITY_REPORT, errors: [] },
  tools: {
    method: "GET",
    path: "/v1/tools",
    auth: "api",
    response: z.object({ functionDeclarations: z.array(functionDeclaration) }),
    errors: [],
  },
  calls: {
    method: "POST",
    path: "/v1/calls",
    auth: "api",
    body: z.object({
      calls: z.readonly(z.array(CALL_INPUT).check(z.maxLength(MAX_BATCH))),
      deadline_ms: z.optional(z.number()),
      client: z.optional(z.object({ kind: z.optional(z.enum(CLIENT_KINDS)), name: z.optional(z.string()) })),
    }),
    response: CALLS_RESPONSE,
    errors: ["ARMB_ERR_HTTP_BODY_TOO_LARGE"],
  },
  cancelCalls: {
    method: "POST",
    path: "/v1/calls/cancel",
    auth: "api",
    body: z.object({ ids: z.readonly(z.array(z.string()).check(z.maxLength(MAX_BATCH))) }),
    response: CALLS_CANCELLED,
    errors: [],
  },
  attachCall: {
    method: "GET",
    path: "/v1/calls/:id",
    auth: "api",
    params: id,
    response: CALL_ANSWER,
    errors: ["ARMB_ERR_CALL_NOT_FOUND"],
  },
  state: { method: "GET", path: "/v1/state", auth: "api", response: ARM_STATE_VIEW, errors: [] },
  events: {
    method: "GET",
    path: "/v1/events",
    auth: "api",
    response: "events",
    errors: ["ARMB_ERR_HTTP_TOO_MANY_STREAMS"],
  },
  arm: { method: "GET", path: "/v1/arm", auth: "api", response: ARM_DESCRIPTION_VIEW, errors: [] },
  armVolumes: {
    method: "GET",
    path: "/v1/arm/volumes",
    auth: "api",
    // A target per joint: `?shoulder=0.4&elbow=-1.2`.
    query: z.record(z.string(), z.string()),
    response: PLACED_VOLUMES_VIEW,
    errors: [],
  },
  actions: {
    method: "GET",
    path: "/v1/actions",
    auth: "api",
    query: z.record(z.string(), z.string()),
    response: ACTIONS_PAGE,
    errors: [],
  },
  action: {
    method: "GET",
    path: "/v1/actions/:id",
    auth: "api",
    params: id,
    response: ACTION_VIEW,
    errors: ["ARMB_ERR_ACTION_NOT_FOUND"],
  },
  confirmAction: {
    method: "POST",
    path: "/v1/actions/:id/confirm",
    auth: "api",
    params: id,
    // The server reads the word (reached, partial, not_moved; done and not_done kept as aliases) and answers an unknown one.
    body: z.extend(operatorNote, { outcome: z.string() }),
    response: ACTION_VIEW,
    errors: ["ARMB_ERR_ACTION_NOT_FOUND", "ARMB_ERR_OPERATOR_REQUIRED"],
  },
  actionFrames: {
    method: "GET",
    path: "/v1/actions/:id/frames",
    auth: "api",
    params: id,
    response: CARD_FRAMES_LIST,
    errors: ["ARMB_ERR_FRAME_NOT_KEPT"],
  },
  actionFrame: {
    method: "GET",
    path: "/v1/actions/:id/frames/:which",
    auth: "api",
    params: idWhich,
    query: z.object({ camera: z.optional(z.string()) }),
    response: "bytes",
    errors: ["ARMB_ERR_FRAME_NOT_KEPT"],
  },
  approvals: { method: "GET", path: "/v1/approvals", auth: "api", response: APPROVALS_LIST, errors: [] },
  approve: {
    method: "POST",
    path: "/v1/approvals/:id/approve",
    auth: "operator",
    params: id,
    body: operatorNote,
    response: DECIDED_APPROVAL_VIEW,
    errors: ["ARMB_ERR_APPROVAL_NOT_FOUND", "ARMB_ERR_APPROVAL_DECIDED", "ARMB_ERR_HTTP_OPERATOR_ONLY"],
  },
  decline: {
    method: "POST",
    path: "/v1/approvals/:id/decline",
    auth: "operator",
    params: id,
    body: operatorNote,
    response: DECIDED_APPROVAL_VIEW,
    errors: ["ARMB_ERR_APPROVAL_NOT_FOUND", "ARMB_ERR_APPROVAL_DECIDED", "ARMB_ERR_HTTP_OPERATOR_ONLY"],
  },
  approvalFrames: {
    method: "GET",
    path: "/v1/approvals/:id/frames",
    auth: "api",
    params: id,
    response: CARD_FRAMES_LIST,
    errors: ["ARMB_ERR_FRAME_NOT_KEPT"],
  },
  approvalFrame: {
    method: "GET",
    path: "/v1/approvals/:id/frames/:which",
    auth: "api",
    params: idWhich,
    query: z.object({ camera: z.optional(z.string()) }),
    response: "bytes",
    errors: ["ARMB_ERR_FRAME_NOT_KEPT"],
  },
  halt: {
    method: "POST",
    path: "/v1/halt",
    auth: "api",
    // A HALT is never refused for how it was asked: the server reads whatever comes.
    body: z.object({
      source: z.optional(z.string()),
      operator: z.optional(z.string()),
      note: z.optional(z.string()),
      joints: z.optional(z.array(z.string())),
    }),
    response: HALT_ANSWER,
    errors: [],
  },
  releaseHalt: {
    method: "POST",
    path: "/v1/halt/release",
    auth: "api",
    body: operatorNote,
    response: HALT_RELEASE_ANSWER,
    errors: ["ARMB_ERR_OPERATOR_REQUIRED"],
  },
  presence: { method: "GET", path: "/v1/presence", auth: "api", response: PRESENCE_VIEW, errors: [] },
  presenceBeat: {
    method: "POST",
    path: "/v1/presence",
    auth: "operator",
    body: z.object({ session: z.string(), operator: z.optional(z.string()), leaving: z.optional(z.boolean()) }),
    response: PRESENCE_VIEW,
    errors: ["ARMB_ERR_PRESENCE_NOT_REQUIRED", "ARMB_ERR_PRESENCE_CONSOLES_FULL", "ARMB_ERR_HTTP_OPERATOR_ONLY"],
  },
  clients: { method: "GET", path: "/v1/clients", auth: "api", response: CLIENTS_LIST, errors: [] },
  cameras: { method: "GET", path: "/v1/cameras", auth: "api", response: CAMERAS_LIST, errors: [] },
  cameraFrame: {
    method: "GET",
    path: "/v1/cameras/:name/frame",
    auth: "api",
    params: camera,
    response: "bytes",
    errors: ["ARMB_ERR_CAMERA_UNKNOWN"],
  },
  cameraTablePoint: {
    method: "GET",
    path: "/v1/cameras/:name/table-point",
    auth: "api",
    params: camera,
    query: z.object({ y: z.string(), x: z.string() }),
    response: TABLE_POINT_VIEW,
    errors: ["ARMB_ERR_CAMERA_UNKNOWN", "ARMB_ERR_CAMERA_NOT_CALIBRATED"],
  },
  recoverServos: {
    method: "POST",
    path: "/v1/servos/recover",
    auth: "api",
    body: z.extend(operatorNote, { joints: z.optional(z.array(z.string())) }),
    response: z.object({ operator: z.string(), results: z.array(z.looseObject({})) }),
    errors: ["ARMB_ERR_RECOVERY_UNSUPPORTED"],
  },
  recoverArm: {
    method: "POST",
    path: "/v1/arm/recover",
    auth: "operator",
    body: z.extend(operatorNote, { run: z.optional(z.boolean()) }),
    response: z.object({ operator: z.string(), ran: z.boolean(), steps: z.array(z.looseObject({})) }),
    errors: ["ARMB_ERR_ARM_RECOVERY_UNSUPPORTED", "ARMB_ERR_HTTP_OPERATOR_ONLY"],
  },
  mcpPost: { method: "POST", path: "/mcp", auth: "api", response: "protocol", errors: [] },
  mcpGet: { method: "GET", path: "/mcp", auth: "api", response: "protocol", errors: [] },
  mcpDelete: { method: "DELETE", path: "/mcp", auth: "api", response: "protocol", errors: [] },
} as const satisfies Record<string, RouteSpec>;

/** What GET /v1/events sends: the data of each named event. */
export const STREAM_EVENTS = { state: ARM_STATE_VIEW, executor: EXECUTOR_EVENT_VIEW } as const;

/** One event of GET /v1/events, its data parsed with its name's schema. */
export type CheckedEvent = {
  [E in keyof typeof STREAM_EVENTS]: { readonly event: E; readonly data: z.output<(typeof STREAM_EVENTS)[E]> };
}[keyof typeof STREAM_EVENTS];

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;

type Out<S> = S extends z.ZodMiniType ? z.output<S> : never;
type In<S> = S extends z.ZodMiniType ? z.input<S> : never;

/** What a client passes to call route N: its path parameters, query and body, each where the route has one. */
export type RouteInput<N extends RouteName> = (Routes[N] extends { params: infer P } ? { params: In<P> } : unknown) &
  (Routes[N] extends { query: infer Q } ? { query?: In<Q> } : unknown) &
  (Routes[N] extends { body: infer B } ? { body: In<B> } : unknown);

/** The parsed JSON answer of route N. */
export type RouteAnswer<N extends RouteName> = Out<Routes[N]["response"]>;

/** The names of the routes that answer one JSON document. */
export type JsonRouteName = {
  [N in RouteName]: Routes[N]["response"] extends z.ZodMiniType ? N : never;
}[RouteName];

/** A route's path with its parameters filled in, each one encoded. */
export function pathOf(route: RouteSpec, params: Readonly<Record<string, string>> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${route.path}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}
