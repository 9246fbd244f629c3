import { ARM_ERRORS } from "./errorCodes/armErrors.js";
import { CALL_ERRORS } from "./errorCodes/callErrors.js";
import { LINK_ERRORS } from "./errorCodes/linkErrors.js";
import { SURFACE_ERRORS } from "./errorCodes/surfaceErrors.js";

/**
 * The one registry of armbridge error codes: each code's message, the HTTP
 * status a surface answers with, and what docs/errors.md adds about it.
 * Every error the product raises or reports carries one of these codes; tests
 * assert on the code, never on the message text. docs/errors.md's table is
 * written from this registry (`npm run docs:errors`) and `test/errors.test.ts`
 * fails when the two drift apart.
 *
 * The entries are kept by what they concern in src/errorCodes/; a code is in
 * exactly one of them (the test counts). Messages are templates: `{name}` is
 * replaced by the detail of that name.
 * Inside a call's result (`response.error`, `response.output`) the code travels
 * without its status; the status is what a route answers with when it throws.
 */
export const ERRORS = { ...CALL_ERRORS, ...ARM_ERRORS, ...LINK_ERRORS, ...SURFACE_ERRORS };

export type ErrorCode = keyof typeof ERRORS;

/** Each code's message template (the public form of the registry, for code that matches on messages' shapes). */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERRORS).map(([code, entry]) => [code, entry.message])) as {
  readonly [C in ErrorCode]: (typeof ERRORS)[C]["message"];
};
export type ErrorDetails = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

function render(template: string, details: ErrorDetails): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = details[key];
    if (value === undefined) return whole;
    return Array.isArray(value) ? value.join(", ") : String(value);
  });
}

/**
 * A structured error: the code is the contract, the message is for people.
 * `details` names the joint / tool / action concerned so callers never parse text.
 */
export class ArmbridgeError extends Error {
  override readonly name = "ArmbridgeError";
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(render(ERRORS[code].message, details), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails; cause?: string } {
    const cause = this.cause;
    return {
      code: this.code,
      message: this.message,
      details: this.details,
      ...(cause === undefined ? {} : { cause: describeCause(cause) }),
    };
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === "string") return cause;
  try {
    return JSON.stringify(cause) ?? typeof cause;
  } catch {
    return typeof cause;
  }
}

export function isArmbridgeError(value: unknown, code?: ErrorCode): value is ArmbridgeError {
  return value instanceof ArmbridgeError && (code === undefined || value.code === code);
}

/** Wraps anything thrown into an ArmbridgeError, keeping the original as the cause. */
export function asArmbridgeError(value: unknown): ArmbridgeError {
  if (value instanceof ArmbridgeError) return value;
  const reason = value instanceof Error ? value.message : String(value);
  return new ArmbridgeError("ARMB_ERR_INTERNAL", { reason }, { cause: value });
}
