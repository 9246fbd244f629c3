import { ArmbridgeError } from "../../errors.js";
import type { CliIo } from "../runtime/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";

export const DEFAULT_SERVE_URL = "http://127.0.0.1:8640";

export const CLIENT_FLAGS_HELP = `Connection (to a running \`armbridge serve\`):
  --url URL          default $ARMBRIDGE_URL, else ${DEFAULT_SERVE_URL}
  --token T          default $ARMBRIDGE_TOKEN (serve prints its token at start)`;

/** The same flags for a command that acts as the operator (approve, decline): its token is the operator's. */
export const OPERATOR_CLIENT_FLAGS_HELP = `Connection (to a running \`armbridge serve\`):
  --url URL          default $ARMBRIDGE_URL, else ${DEFAULT_SERVE_URL}
  --token T          the operator token (default $ARMBRIDGE_OPERATOR_TOKEN, else $ARMBRIDGE_TOKEN;
                     serve prints it, and its console link carries it); the API token is refused`;

export const CLIENT_FLAG_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
} as const;

/** An error answer of the API, passed on with the server's code. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A small JSON client for the HTTP API, used by `call`, `actions` and `confirm`. */
export class ApiClient {
  readonly url: string;
  readonly #token: string;

  constructor(url: string, token: string) {
    this.url = url.replace(/\/+$/, "");
    this.#token = token;
  }

  /** `as: "operator"` prefers $ARMBRIDGE_OPERATOR_TOKEN when no --token is given (approve, decline). */
  static fromFlags(
    flags: { url?: string | undefined; token?: string | undefined },
    io: CliIo,
    as: "api" | "operator" = "api",
  ): ApiClient {
    const url = flags.url ?? (io.env.ARMBRIDGE_URL || DEFAULT_SERVE_URL);
    if (!/^https?:\/\/[^/]+/.test(url))
      throw cliUsageError(`--url must be an http(s) URL (got ${JSON.stringify(url)})`);
    const token =
      flags.token ??
      ((as === "operator" ? io.env.ARMBRIDGE_OPERATOR_TOKEN : undefined) || io.env.ARMBRIDGE_TOKEN || undefined);
    if (!token)
      throw cliUsageError(`no token; pass --token T or set ARMBRIDGE_TOKEN (\`armbridge serve\` prints its token)`);
    return new ApiClient(url, token);
  }

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ArmbridgeError(
        "ARMB_ERR_HTTP_UNREACHABLE",
        { url: this.url, reason: cause?.code ?? cause?.message ?? String(error) },
        { cause: error },
      );
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      throw new ApiError(
        res.status,
        typeof e?.code === "string" ? e.code : `HTTP_${res.status}`,
        typeof e?.message === "string" ? e.message : text.slice(0, 200),
      );
    }
    return json;
  }
}
