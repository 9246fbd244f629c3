import { parseDurationMs } from "./parseDurationMs.js";

/** What kind of trouble a model request met; decides the advice in a final failure. */
export type ModelFailureKind = "quota" | "key" | "network" | "service" | "request" | "timeout";

/** One failed model request, as the retry loop judges it. */
export interface ModelFailure {
  readonly kind: ModelFailureKind;
  /** Worth another attempt: 408, 429, 500, 502, 503, 504, a reset or timed-out connection, a temporary DNS failure. */
  readonly transient: boolean;
  /** For people: "429 RESOURCE_EXHAUSTED", "ECONNRESET", "no answer within 120000 ms". */
  readonly status: string;
  readonly httpStatus?: number | undefined;
  /** How long the server asked us to wait, and which field said so. */
  readonly retryAfterMs?: number | undefined;
  readonly retryAfterFrom?: "Retry-After" | "RetryInfo" | undefined;
  /** The server's own words, one line. */
  readonly message: string;
}

/** What the last HTTP response of a request looked like (captured by the client's fetch). */
export interface SeenResponse {
  readonly status: number;
  readonly retryAfter: string | null;
}

/** What to do about each kind of failure: the last words of a final error. */
export const MODEL_FAILURE_ADVICE: Readonly<Record<ModelFailureKind, string>> = {
  quota:
    "the quota of this API key for this model is used up (requests or tokens per minute, or per day): wait and run again, lower the request rate, or use a key with a higher quota (https://ai.google.dev/gemini-api/docs/rate-limits)",
  key: "the API key was refused: check GEMINI_API_KEY (a Gemini API key with access to this model)",
  network: "the endpoint could not be reached: check the network, any proxy, and --base-url",
  service: "the Gemini service failed or is overloaded: try again in a few minutes",
  request: "the request itself was refused: check --model (an id this key may use) and --api-version",
  timeout: "no answer in time: check the network, or try again later",
};

/** HTTP statuses worth a retry (the SDK's own default list, less none). */
const TRANSIENT_HTTP = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Socket-level failures as Node's fetch (undici) reports them, in the
 * `cause` of its "fetch failed" TypeError. Transient: the connection was
 * reset or timed out, or DNS failed for now. Not transient: nothing listens
 * there (ECONNREFUSED) or the name does not exist (ENOTFOUND) — retrying
 * would only wait longer to say the same.
 */
const NETWORK_CODES: Readonly<Record<string, boolean>> = {
  ECONNRESET: true,
  EPIPE: true,
  ETIMEDOUT: true,
  EAI_AGAIN: true,
  ECONNABORTED: true,
  UND_ERR_SOCKET: true,
  UND_ERR_CONNECT_TIMEOUT: true,
  UND_ERR_HEADERS_TIMEOUT: true,
  UND_ERR_BODY_TIMEOUT: true,
  ECONNREFUSED: false,
  ENOTFOUND: false,
  EHOSTUNREACH: false,
  ENETUNREACH: false,
};

/**
 * Judges an error thrown by `models.generateContent`. The SDK throws its
 * `ApiError` (`status` and, as `message`, the JSON error body) for an HTTP
 * failure, and passes fetch's TypeError through for a socket failure
 * (@google/genai 2.32 `throwErrorIfNotOK`, `unaryApiCall`). `seen` is the
 * last response the client's fetch saw: the SDK drops the headers, and
 * Retry-After lives there.
 */
export function classifyModelFailure(error: unknown, seen: SeenResponse | undefined): ModelFailure {
  const httpStatus =
    typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : undefined;
  if (httpStatus !== undefined)
    return httpFailure(httpStatus, error instanceof Error ? error.message : String(error), seen);
  const code = socketCode(error);
  if (code !== undefined || (error instanceof TypeError && error.message === "fetch failed")) {
    const why = code ?? "fetch failed";
    return { kind: "network", transient: NETWORK_CODES[why] ?? false, status: why, message: describeChain(error) };
  }
  return {
    kind: "request",
    transient: false,
    status: "error",
    message: error instanceof Error ? error.message : String(error),
  };
}

function httpFailure(httpStatus: number, body: string, seen: SeenResponse | undefined): ModelFailure {
  const parsed = parseErrorBody(body);
  const status = `${httpStatus}${parsed.status ? ` ${parsed.status}` : ""}`;
  const fromHeader = seen?.status === httpStatus ? parseRetryAfterMs(seen.retryAfter) : undefined;
  const fromBody = parsed.retryDelayMs;
  // Both may be present; honour the longer, so neither is cut short.
  const retryAfterFrom =
    fromHeader === undefined && fromBody === undefined
      ? undefined
      : (fromBody ?? -1) > (fromHeader ?? -1)
        ? "RetryInfo"
        : "Retry-After";
  const retryAfterMs = retryAfterFrom === undefined ? undefined : Math.max(fromHeader ?? 0, fromBody ?? 0);
  const kind: ModelFailureKind =
    httpStatus === 429
      ? "quota"
      : httpStatus === 401 || httpStatus === 403 || parsed.keyInvalid
        ? "key"
        : httpStatus === 408
          ? "timeout"
          : httpStatus >= 500
            ? "service"
            : "request";
  return {
    kind,
    transient: TRANSIENT_HTTP.has(httpStatus),
    status,
    httpStatus,
    retryAfterMs,
    retryAfterFrom,
    message: parsed.message ?? oneLine(body),
  };
}

/** Retry-After: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfterMs(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date names its day and zone ("Tue, 01 Dec 2026 10:00:07 GMT"); Date.parse would take "-1" for a year.
  if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The Google API error body: `{error: {code, message, status, details: [...]}}`,
 * where a `google.rpc.RetryInfo` detail carries `retryDelay` (a Duration) and
 * a `google.rpc.ErrorInfo` with reason API_KEY_INVALID marks a bad key
 * (google.rpc error model, https://cloud.google.com/apis/design/errors).
 */
function parseErrorBody(body: string): {
  status?: string;
  message?: string;
  retryDelayMs?: number;
  keyInvalid: boolean;
} {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { keyInvalid: false };
  }
  const error = (parsed as { error?: { message?: unknown; status?: unknown; details?: unknown } } | null)?.error;
  if (typeof error !== "object" || error === null) return { keyInvalid: false };
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
  const typeOf = (d: Record<string, unknown>): string => (typeof d["@type"] === "string" ? d["@type"] : "");
  const retryInfo = details.find((d) => typeOf(d).endsWith("google.rpc.RetryInfo"));
  const keyInvalid = details.some((d) => typeOf(d).endsWith("google.rpc.ErrorInfo") && d.reason === "API_KEY_INVALID");
  return {
    ...(typeof error.status === "string" ? { status: error.status } : {}),
    ...(typeof error.message === "string" ? { message: oneLine(error.message) } : {}),
    ...(retryInfo ? withDefined("retryDelayMs", parseDurationMs(retryInfo.retryDelay)) : {}),
    keyInvalid,
  };
}

function withDefined<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, number>>);
}

/** The first socket `code` along an error's cause chain (undici puts ECONNRESET on the cause of "fetch failed"). */
function socketCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e !== undefined && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (code in NETWORK_CODES || (depth > 0 && /^[A-Z_]+$/.test(code)))) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** "fetch failed: other side closed": the message and its causes' messages. */
function describeChain(error: unknown): string {
  const words: string[] = [];
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e.message && !words.includes(e.message)) words.push(e.message);
    e = e.cause;
  }
  return oneLine(words.join(": ") || String(error));
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}
