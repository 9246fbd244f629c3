import { createLogger, type Logger } from "../../observability/logger.js";
import { generateToken } from "../http/bearerToken.js";
import { DEFAULT_MAX_HTTP_CONNECTIONS } from "../http/bindHttpPort.js";
import { DEFAULT_MAX_EVENT_STREAMS } from "../http/EventStreamHub.js";
import { normalizeHost } from "../http/hostAllowList.js";
import { MIN_TOKEN_LENGTH } from "../http/securityReport.js";
import {
  BRIDGE_FLAG_NAMES,
  BRIDGE_FLAGS_HELP,
  NO_ARM_GIVEN,
  parseBridgeFlags,
  type BridgeFlagOptions,
} from "../runtime/bridgeFlags.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags, positiveInt } from "../runtime/parseCommandFlags.js";
import { ProcessScope } from "../runtime/ProcessScope.js";
import { startServing, type Serving } from "../runtime/startServing.js";
import { onStopSignals } from "../../commandLine/stopSignals.js";
import { startRecording } from "../../recording/startRecording.js";

export const DEFAULT_HTTP = "127.0.0.1:8640";

const SERVE_FLAGS = {
  http: { type: "string" },
  token: { type: "string" },
  "operator-token": { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "max-event-streams": { type: "string" },
  record: { type: "string" },
} as const;

/** Every flag serve takes: its own and the bridge's. */
export const SERVE_FLAG_NAMES: readonly string[] = [...Object.keys(SERVE_FLAGS), ...BRIDGE_FLAG_NAMES];

export const SERVE_HELP = `Usage: armbridge serve (--serial LINK | --ros) [--http HOST:PORT] [--token T] [--operator-token T] [--allow-host NAME]... [--max-event-streams N] [--record DIR] [--config FILE] [--data DIR] [--adopt-ledger]

Starts the bridge, the HTTP API and the operator console. The HTTP port is
bound first, before the arm is touched: a taken port is ARMB_ERR_HTTP_PORT_IN_USE.
When ready, prints one JSON line on stdout (data: the ledger's folder, absolute):
  {"event":"ready","http":"http://127.0.0.1:PORT","console":"http://127.0.0.1:PORT/console#token=...","data":"/abs/folder"}
The console link carries the operator token, not the API token.
Logs go to stderr. SIGINT / SIGTERM / SIGHUP shut down cleanly (exit 0).

Flags:
  --http HOST:PORT     where the API listens (default ${DEFAULT_HTTP}; port 0 = any free port).
                       Beyond loopback (0.0.0.0, a LAN address) a warning is printed on stderr
                       and shown by GET /v1/security
  --token T            bearer token for the API (default $ARMBRIDGE_TOKEN, else a new one,
                       printed on stderr); under ${MIN_TOKEN_LENGTH} characters is warned about. Agents and
                       MCP clients use it; it cannot heartbeat presence or decide approvals
  --operator-token T   the operator's token (default $ARMBRIDGE_OPERATOR_TOKEN, else a new one,
                       printed on stderr): the console link carries it; presence heartbeats and
                       approve/decline need it. Give it to people, never to an agent
  --allow-host NAME    a Host name the API answers to besides localhost, 127.0.0.1, [::1] and
                       the --http address (repeatable); other names get 421 ARMB_ERR_HTTP_HOST_NOT_ALLOWED
  --max-event-streams N  GET /v1/events streams open at once (default ${DEFAULT_MAX_EVENT_STREAMS}); more get 503
  --record DIR         record the session as MCAP files in DIR (config \`recording:\` sets the rest;
                       docs/recording.md); \`armbridge export lerobot --from DIR\` reads them
${BRIDGE_FLAGS_HELP}`;

export interface ServeControls {
  /** Ends serving (tests); by default SIGINT / SIGTERM do. */
  readonly until?: AbortSignal;
  readonly logger?: Logger;
}

/** How long shutdown may take before we say so and give up waiting. */
const SHUTDOWN_LIMIT_MS = 10_000;

export async function serveCommand(argv: readonly string[], io: CliIo, controls: ServeControls = {}): Promise<number> {
  const flags = serveFlagsOf(argv, io);
  const logger = controls.logger ?? createLogger();
  const log = logger.child({ component: "serve" });
  // Since the process began: what Node's own start and the module loading cost before serve could run.
  logger
    .child({ component: "startup" })
    .debug({ since_process_start_ms: Math.round(performance.now()) }, "serve running");
  const stop = controls.until ? { signal: controls.until, dispose: () => undefined } : processSignals();
  const scope = new ProcessScope();
  try {
    const serving = await startServe(flags, scope, io, logger).catch(async (error: unknown) => {
      await scope.close();
      throw error;
    });
    announceReady(serving, flags, io, log);
    if (!stop.signal.aborted)
      await new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
    log.info(
      "shutting down: ending in-flight waits, then closing the HTTP server and the bridge (motions under way are not stopped)",
    );
    if ((await scope.closeWithin(SHUTDOWN_LIMIT_MS)) === "timed_out") {
      log.error({ limit_ms: SHUTDOWN_LIMIT_MS }, "shutdown did not finish in time");
      return 1;
    }
    log.info("stopped");
    return 0;
  } finally {
    stop.dispose();
  }
}

/** What serve's command line asks for, every problem said before anything is bound or started. */
interface ServeFlags {
  readonly options: BridgeFlagOptions;
  readonly host: string;
  readonly port: number;
  readonly allowHosts: readonly string[];
  readonly maxStreams: number | undefined;
  readonly token: string;
  readonly operatorToken: string;
  readonly record: string | undefined;
}

function serveFlagsOf(argv: readonly string[], io: CliIo): ServeFlags {
  const { options, rest } = parseServeArgs(argv);
  const { values, positionals } = rest;
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const { host, port } = parseHostPort(values.http ?? DEFAULT_HTTP);
  const allowHosts = (values["allow-host"] ?? []).map(parseAllowedHost);
  const maxStreams = positiveInt("--max-event-streams", values["max-event-streams"]);
  if (values.record !== undefined && values.record.length === 0) throw cliUsageError("--record needs a folder");
  if (values.token !== undefined && values.token.length === 0) throw cliUsageError("--token must not be empty");
  let token = values.token ?? io.env.ARMBRIDGE_TOKEN;
  if (!token) {
    token = generateToken();
    io.stderr.write(`armbridge: no --token or ARMBRIDGE_TOKEN given; generated token: ${token}\n`);
  }
  const operatorToken = operatorTokenOfFlags(values["operator-token"], token, io);
  return { options, host, port, allowHosts, maxStreams, token, operatorToken, record: values.record };
}

/**
 * The port, the bridge, the API. Once serving, closing the scope ends every
 * wait first (calls in flight answer `unknown` and stay `started` in the
 * ledger for the next start to reconcile), so the HTTP server is not held
 * open by them; then the HTTP server, then the bridge.
 */
async function startServe(flags: ServeFlags, scope: ProcessScope, io: CliIo, logger: Logger): Promise<Serving> {
  const serving = await startServing({
    scope,
    http: {
      host: flags.host,
      port: flags.port,
      // Room for every event stream allowed, besides the calls and consoles.
      maxConnections: Math.max(DEFAULT_MAX_HTTP_CONNECTIONS, (flags.maxStreams ?? DEFAULT_MAX_EVENT_STREAMS) + 48),
      token: flags.token,
      operatorToken: flags.operatorToken,
      allowHosts: flags.allowHosts,
      events: flags.maxStreams === undefined ? undefined : { maxStreams: flags.maxStreams },
    },
    bridge: { ...flags.options, env: io.env, logger },
    onBridge: async (bridge) => {
      for (const w of bridge.startupWarnings) io.stderr.write(`armbridge serve: WARNING: ${w}\n`);
      // Before the API serves, so the first call is on the record; closed after the HTTP server, before the bridge.
      const recorder = await startRecording(bridge, flags.record);
      if (recorder) scope.add("recording", () => recorder.close());
    },
  });
  if (!serving) throw new Error("serve: started without a stop signal, yet stopped");
  scope.add("waits", () => serving.bridge.endWaits());
  return serving;
}

/** The warnings a wide bind or a short token earn, and the ready line. */
function announceReady(serving: Serving, flags: ServeFlags, io: CliIo, log: Logger): void {
  const { bridge, http: server } = serving;
  for (const w of server.security.warnings) {
    io.stderr.write(`armbridge: warning: ${w.message}\n`);
    log.warn({ kind: w.kind }, w.message);
  }
  const consoleUrl = `${server.url}/console#token=${encodeURIComponent(flags.operatorToken)}`;
  io.stdout.write(
    JSON.stringify({ event: "ready", http: server.url, console: consoleUrl, data: bridge.dataDir }) + "\n",
  );
  log.info({ http: server.url, transport: flags.options.transport.kind, data: bridge.dataDir }, "armbridge serving");
}

/** --operator-token, else $ARMBRIDGE_OPERATOR_TOKEN, else a new one (said on stderr); never the API token itself. */
function operatorTokenOfFlags(flag: string | undefined, apiToken: string, io: CliIo): string {
  if (flag !== undefined && flag.length === 0) throw cliUsageError("--operator-token must not be empty");
  let operatorToken = flag ?? (io.env.ARMBRIDGE_OPERATOR_TOKEN || undefined);
  if (operatorToken === apiToken)
    throw cliUsageError(
      "--operator-token must differ from the API token (--token): the operator's token is what an agent must not hold",
    );
  if (!operatorToken) {
    operatorToken = generateToken();
    io.stderr.write(
      `armbridge: no --operator-token or ARMBRIDGE_OPERATOR_TOKEN given; generated operator token (the console link carries it; armbridge approve/decline need it): ${operatorToken}\n`,
    );
  }
  return operatorToken;
}

/** A bare host name or address for --allow-host (no scheme, port or path). */
function parseAllowedHost(value: string): string {
  if (!/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)$/.test(value))
    throw cliUsageError(
      `--allow-host needs a bare host name or address, like robot.local or 192.168.1.20 (got ${JSON.stringify(value)})`,
    );
  return normalizeHost(value);
}

/** `HOST:PORT` or `[v6]:PORT`; port 0 means any free port. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  const host = m?.[1] ?? m?.[2];
  if (!host || !Number.isInteger(port) || port > 65535)
    throw cliUsageError(`--http must be HOST:PORT with a port 0-65535 (got ${JSON.stringify(value)})`);
  return { host, port };
}

/** Ends serving on the first stop signal. */
function processSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const dispose = onStopSignals(() => controller.abort(), "once");
  return { signal: controller.signal, dispose };
}

/** Flags people reach for that serve spells another way: the hint follows the "unknown option" error. */
const FLAG_HINTS: Readonly<Record<string, string>> = {
  "--port": "the API's address is --http HOST:PORT, e.g. --http 127.0.0.1:1234",
  "--host": "the API's address is --http HOST:PORT, e.g. --http 0.0.0.0:8640",
  "--listen": "the API's address is --http HOST:PORT",
};

/**
 * The bridge flags and serve's own, every problem in one message: an unknown
 * flag (with the spelling serve uses, when it is a usual slip) and a missing
 * arm are both said, so `serve --port 1234` does not answer only "no arm".
 */
function parseServeArgs(argv: readonly string[]): {
  options: BridgeFlagOptions;
  rest: ReturnType<typeof parseCommandFlags<typeof SERVE_FLAGS>>;
} {
  const { options, rest } = parseBridgeFlags(argv, { transport: "optional" });
  const problems: string[] = [];
  let parsed: ReturnType<typeof parseCommandFlags<typeof SERVE_FLAGS>> | undefined;
  try {
    parsed = parseCommandFlags(rest, SERVE_FLAGS);
  } catch (error) {
    const message = (error as { details?: { message?: unknown } }).details?.message;
    const text = typeof message === "string" ? message : String(error);
    const hint = Object.entries(FLAG_HINTS).find(([flag]) => text.includes(`'${flag}'`))?.[1];
    problems.push(hint ? `${text} (${hint})` : text);
  }
  if (options.transport === undefined) problems.push(NO_ARM_GIVEN);
  if (problems.length > 0 || !parsed || !options.transport) throw cliUsageError(problems.join("; and "));
  return { options: { ...options, transport: options.transport }, rest: parsed };
}
