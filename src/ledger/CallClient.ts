/**
 * Who sent a call: the surface it came through and what the sender says it
 * is. Recorded with every motion in the ledger and carried by every executor
 * event, so an operator can tell which model is moving the arm. It is a
 * label, not an authentication: every client of one bridge shares its token.
 *
 * - `agent`: a Gemini agent loop (`armbridge agent`, embedded or attached
 *   with `--bridge`, and the demo's sessions); `name` is the model, `session`
 *   the run.
 * - `mcp`: an MCP client; `name` is the `clientInfo.name` (and version) from
 *   its `initialize`, `session` the MCP session id (`stdio` over stdio).
 * - `http`: a caller of `POST /v1/calls` that gave no kind of its own; `name`
 *   is its label (`client.name`), else `http`.
 * - `console`: the operator console (its HALT button); `name` the operator.
 * - `cli`: `armbridge call`.
 */
export const CLIENT_KINDS = ["agent", "mcp", "http", "console", "cli"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export interface CallClient {
  readonly kind: ClientKind;
  readonly name: string;
  readonly session?: string | undefined;
}

/** Longest name and session kept: a label for people, not a payload. */
export const CLIENT_NAME_MAX = 200;
export const CLIENT_SESSION_MAX = 100;

/**
 * A client as it may be stored and shown: control characters dropped,
 * whitespace collapsed, lengths bounded, an empty name replaced by the kind.
 * What a client says about itself is untrusted text.
 */
export function normalizeClient(client: {
  readonly kind: ClientKind;
  readonly name?: string | undefined;
  readonly session?: string | undefined;
}): CallClient {
  const name = clean(client.name ?? "", CLIENT_NAME_MAX) || client.kind;
  const session = clean(client.session ?? "", CLIENT_SESSION_MAX);
  return session ? { kind: client.kind, name, session } : { kind: client.kind, name };
}

/** In words: `agent gemini-2.5-flash (session 3f9a0c)`. */
export function describeClient(client: CallClient): string {
  return `${client.kind} ${client.name}${client.session ? ` (session ${client.session})` : ""}`;
}

export function isClientKind(value: unknown): value is ClientKind {
  return typeof value === "string" && (CLIENT_KINDS as readonly string[]).includes(value);
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a log line or a page
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

function clean(text: string, max: number): string {
  return text.replace(CONTROL_CHARACTERS, " ").replace(/\s+/g, " ").trim().slice(0, max).trim();
}
