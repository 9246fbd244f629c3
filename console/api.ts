import type { ApiErrorBody } from "./wire.js";

/** An API answer that was not 2xx, with the bridge's own code when it sent one. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.code = body.code;
    this.status = status;
  }
}

function errorBodyOf(status: number, statusText: string, json: unknown): ApiErrorBody {
  const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return {
    code: typeof error?.code === "string" ? error.code : `HTTP_${status}`,
    message: typeof error?.message === "string" ? error.message : statusText || "request failed",
  };
}

/**
 * The bearer token travels in a header on every call (the event stream too,
 * which is why it is read with fetch and not EventSource): never in a URL.
 */
export class ApiClient {
  readonly #token: string;
  readonly #onRefused: () => void;

  constructor(token: string, onRefused: () => void) {
    this.#token = token;
    this.#onRefused = onRefused;
  }

  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#token}` };
  }

  refused(): void {
    this.#onRefused();
  }

  async get<T>(path: string): Promise<T> {
    return this.#call<T>("GET", path, undefined);
  }

  /** Bytes (a camera frame) with the response's headers. */
  async getBlob(path: string, signal?: AbortSignal): Promise<{ blob: Blob; headers: Headers }> {
    const response = await fetch(path, { headers: this.headers, cache: "no-store", ...(signal ? { signal } : {}) });
    if (response.status === 401) this.#onRefused();
    if (!response.ok) {
      const json: unknown = await response.json().catch(() => null);
      throw new ApiError(response.status, errorBodyOf(response.status, response.statusText, json));
    }
    return { blob: await response.blob(), headers: response.headers };
  }

  /** `keepalive`: the request is sent even as the page closes (a console's goodbye). */
  async post<T>(path: string, body: unknown, options: { readonly keepalive?: boolean } = {}): Promise<T> {
    return this.#call<T>("POST", path, body, options.keepalive === true);
  }

  async #call<T>(method: string, path: string, body: unknown, keepalive = false): Promise<T> {
    const headers = this.headers;
    const init: RequestInit = { method, headers, cache: "no-store", ...(keepalive ? { keepalive } : {}) };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const json: unknown = await response.json().catch(() => null);
    if (response.status === 401) this.#onRefused();
    if (!response.ok) throw new ApiError(response.status, errorBodyOf(response.status, response.statusText, json));
    return json as T;
  }
}

/** `CODE: message` for any thrown value, for an error line on the page. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
