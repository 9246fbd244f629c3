import { CLIENT_KINDS, type ClientKind } from "../wire/vocabulary.js";

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
