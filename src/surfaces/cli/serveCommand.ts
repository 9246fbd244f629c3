import { Bridge } from "../../bridge/Bridge.js";
import { createLogger, type Logger } from "../../observability/logger.js";
import { generateToken } from "../http/bearerToken.js";
import { startHttpServer } from "../http/startHttpServer.js";
import { BRIDGE_FLAGS_HELP, parseBridgeFlags } from "./bridgeFlags.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags } from "./parseCommandFlags.js";

export const DEFAULT_HTTP = "127.0.0.1:8640";

export const SERVE_HELP = `Usage: armbridge serve (--serial LINK | --ros) [--http HOST:PORT] [--token T] [--config FILE] [--data DIR]

Starts the bridge, the HTTP API and the operator console. When ready, prints one
JSON line on stdout (data: the ledger's folder, absolute):
  {"event":"ready","http":"http://127.0.0.1:PORT","console":"http://127.0.0.1:PORT/console#token=...","data":"/abs/folder"}
Logs go to stderr. SIGINT / SIGTERM shut down cleanly (exit 0).

  --http HOST:PORT     where the API listens (default ${DEFAULT_HTTP}; port 0 = any free port)
  --token T            bearer token for the API (default $ARMBRIDGE_TOKEN, else a new one,
                       printed on stderr)
${BRIDGE_FLAGS_HELP}`;

export interface ServeControls {
  /** Ends serving (tests); by default SIGINT / SIGTERM do. */
  readonly until?: AbortSignal;
  readonly logger?: Logger;
}

/** How long shutdown may take before we say so and give up waiting. */
const SHUTDOWN_LIMIT_MS = 10_000;

export async function serveCommand(argv: readonly string[], io: CliIo, controls: ServeControls = {}): Promise<number> {
  const { options, rest } = parseBridgeFlags(argv);
  const { values, positionals } = parseCommandFlags(rest, { http: { type: "string" }, token: { type: "string" } });
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const { host, port } = parseHostPort(values.http ?? DEFAULT_HTTP);
  if (values.token !== undefined && values.token.length === 0) throw cliUsageError("--token must not be empty");
  let token = values.token ?? io.env.ARMBRIDGE_TOKEN;
  if (!token) {
    token = generateToken();
    io.stderr.write(`armbridge: no --token or ARMBRIDGE_TOKEN given; generated token: ${token}\n`);
  }

  const logger = controls.logger ?? createLogger();
  const log = logger.child({ component: "serve" });
  const stop = controls.until ? { signal: controls.until, dispose: () => undefined } : processSignals();
  try {
    const bridge = await Bridge.start({ config: options.config, transport: options.transport, dataDir: options.dataDir, otherArm: options.otherArm, env: io.env, logger });
    for (const w of bridge.startupWarnings) io.stderr.write(`armbridge serve: WARNING: ${w}\n`);
    let server;
    try {
      server = await startHttpServer(bridge, { host, port, token });
    } catch (error) {
      await bridge.close();
      throw error;
    }
    const consoleUrl = `${server.url}/console#token=${encodeURIComponent(token)}`;
    io.stdout.write(JSON.stringify({ event: "ready", http: server.url, console: consoleUrl, data: bridge.dataDir }) + "\n");
    log.info({ http: server.url, transport: options.transport.kind, data: bridge.dataDir }, "armbridge serving");

    if (!stop.signal.aborted) await new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
    log.info("shutting down: ending in-flight waits, then closing the HTTP server and the bridge (motions under way are not stopped)");
    const closed = (async () => {
      // First end every wait (calls in flight answer `unknown` and stay `started` in the
      // ledger for the next start to reconcile), so the HTTP server is not held open by them.
      bridge.executor.close();
      await server.close();
      await bridge.close();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), SHUTDOWN_LIMIT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    if (timedOut) {
      log.error({ limit_ms: SHUTDOWN_LIMIT_MS }, "shutdown did not finish in time");
      return 1;
    }
    log.info("stopped");
    return 0;
  } finally {
    stop.dispose();
  }
}

/** `HOST:PORT` or `[v6]:PORT`; port 0 means any free port. */
export function parseHostPort(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  const host = m?.[1] ?? m?.[2];
  if (!host || !Number.isInteger(port) || port > 65535) throw cliUsageError(`--http must be HOST:PORT with a port 0-65535 (got ${JSON.stringify(value)})`);
  return { host, port };
}

function processSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
