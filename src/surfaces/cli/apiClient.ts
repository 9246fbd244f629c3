import { ArmbridgeClient } from "../../wire/client/ArmbridgeClient.js";
import { nodeFetch, unreachable } from "../client/nodeFetch.js";
import type { CliIo } from "../../commandLine/CliIo.js";
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

/**
 * The client of the running serve named by --url/--token (or the
 * environment). `as: "operator"` prefers $ARMBRIDGE_OPERATOR_TOKEN when no
 * --token is given (approve, decline). `wait: "long"` for a command whose
 * answer may take minutes (`armbridge call` waiting for an operator's
 * approval): Node's own fetch gives up after 300 s without an answer, so it
 * runs on a fetch without that limit, which costs a module load at its first
 * request; the commands that answer at once (halt above all) do not pay it.
 */
export function clientFromFlags(
  flags: { url?: string | undefined; token?: string | undefined },
  io: CliIo,
  as: "api" | "operator" = "api",
  wait: "brief" | "long" = "brief",
): ArmbridgeClient {
  const url = flags.url ?? (io.env.ARMBRIDGE_URL || DEFAULT_SERVE_URL);
  if (!/^https?:\/\/[^/]+/.test(url)) throw cliUsageError(`--url must be an http(s) URL (got ${JSON.stringify(url)})`);
  const token =
    flags.token ??
    ((as === "operator" ? io.env.ARMBRIDGE_OPERATOR_TOKEN : undefined) || io.env.ARMBRIDGE_TOKEN || undefined);
  if (!token)
    throw cliUsageError(`no token; pass --token T or set ARMBRIDGE_TOKEN (\`armbridge serve\` prints its token)`);
  return new ArmbridgeClient({
    url,
    token,
    ...(wait === "long" ? { fetch: nodeFetch().fetch } : {}),
    connectionError: unreachable,
  });
}
