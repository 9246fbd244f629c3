import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "../../../src/surfaces/gemini/backoffDelayMs.js";
import { classifyModelFailure, parseRetryAfterMs } from "../../../src/surfaces/gemini/ModelFailure.js";
import { parseDurationMs } from "../../../src/surfaces/gemini/parseDurationMs.js";

/** An error as @google/genai's ApiError carries it: the status and, as message, the JSON body. */
const apiError = (status: number, body: unknown): Error & { status: number } =>
  Object.assign(new Error(JSON.stringify(body)), { status });
const fetchFailed = (code: string): TypeError =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("socket trouble"), { code }) });

describe("classifyModelFailure: which failures are worth another attempt, and how long to wait", () => {
  it.each([
    [429, "RESOURCE_EXHAUSTED", "quota", true],
    [503, "UNAVAILABLE", "service", true],
    [500, "INTERNAL", "service", true],
    [502, "BAD_GATEWAY", "service", true],
    [504, "DEADLINE_EXCEEDED", "service", true],
    [408, "REQUEST_TIMEOUT", "timeout", true],
    [400, "INVALID_ARGUMENT", "request", false],
    [404, "NOT_FOUND", "request", false],
    [403, "PERMISSION_DENIED", "key", false],
    [401, "UNAUTHENTICATED", "key", false],
    [501, "NOT_IMPLEMENTED", "service", false],
  ] as const)("HTTP %i %s: %s, transient %s", (status, name, kind, transient) => {
    const f = classifyModelFailure(
      apiError(status, { error: { code: status, message: "words", status: name } }),
      undefined,
    );
    expect(f).toMatchObject({ kind, transient, status: `${status} ${name}`, httpStatus: status, message: "words" });
  });

  it.each([
    ["ECONNRESET", true],
    ["UND_ERR_SOCKET", true],
    ["ETIMEDOUT", true],
    ["EAI_AGAIN", true],
    ["ECONNREFUSED", false],
    ["ENOTFOUND", false],
    ["CERT_HAS_EXPIRED", false],
  ] as const)("fetch failed with %s: network, transient %s", (code, transient) => {
    expect(classifyModelFailure(fetchFailed(code), undefined)).toMatchObject({
      kind: "network",
      transient,
      status: code,
      message: "fetch failed: socket trouble",
    });
  });

  it("a bad key in a 400 (ErrorInfo API_KEY_INVALID) is the key's fault", () => {
    const body = {
      error: {
        code: 400,
        message: "API key not valid.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
      },
    };
    expect(classifyModelFailure(apiError(400, body), undefined)).toMatchObject({ kind: "key", transient: false });
  });

  it("the wait: RetryInfo.retryDelay, Retry-After of the same response, the longer when both", () => {
    const body = (delay: string) => ({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message: "q",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay }],
      },
    });
    expect(classifyModelFailure(apiError(429, body("1.5s")), undefined)).toMatchObject({
      retryAfterMs: 1500,
      retryAfterFrom: "RetryInfo",
    });
    expect(classifyModelFailure(apiError(429, body("1s")), { status: 429, retryAfter: "4" })).toMatchObject({
      retryAfterMs: 4000,
      retryAfterFrom: "Retry-After",
    });
    expect(classifyModelFailure(apiError(429, body("9s")), { status: 429, retryAfter: "4" })).toMatchObject({
      retryAfterMs: 9000,
      retryAfterFrom: "RetryInfo",
    });
    // A header seen on another response (an earlier attempt's) is not this one's.
    expect(
      classifyModelFailure(apiError(503, { error: { status: "UNAVAILABLE" } }), { status: 429, retryAfter: "4" })
        .retryAfterMs,
    ).toBeUndefined();
  });
});

describe("parseRetryAfterMs (RFC 9110 §10.2.3) and parseDurationMs (protobuf Duration JSON)", () => {
  it.each([
    ["3", 3000],
    [" 0 ", 0],
    ["", undefined],
    ["soon", undefined],
    ["-1", undefined],
  ] as const)("Retry-After %j → %s ms", (value, ms) => {
    expect(parseRetryAfterMs(value)).toBe(ms);
  });

  it("an HTTP-date counts from now, and never below zero", () => {
    const now = Date.parse("2026-12-01T10:00:00Z");
    expect(parseRetryAfterMs("Tue, 01 Dec 2026 10:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfterMs("Tue, 01 Dec 2026 09:59:00 GMT", now)).toBe(0);
  });

  it.each([
    ["1s", 1000],
    ["0.250s", 250],
    ["37.5s", 37_500],
    ["3.000000001s", 3000],
    ["50", undefined],
    ["1m", undefined],
    ["-1s", undefined],
  ] as const)("%j → %s ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });
});

describe("backoffDelayMs: exponential, capped, jittered, never zero", () => {
  it("stays within [ceiling/2, ceiling] and the ceiling never passes maxMs", () => {
    const b = { initialMs: 250, maxMs: 10_000 };
    expect([1, 2, 3, 10].map((n) => backoffDelayMs(n, b, () => 0))).toEqual([125, 250, 500, 5000]);
    expect([1, 2, 3, 10].map((n) => backoffDelayMs(n, b, () => 1))).toEqual([250, 500, 1000, 10_000]);
  });
});
