import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { serveStdio as serveMcpStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Bridge } from "../../../bridge/Bridge.js";
import { packageRoot } from "../../../config/packageRoot.js";
import { ArmbridgeError, asArmbridgeError } from "../../../errors.js";
import { createLogger, type Logger } from "../../../observability/logger.js";
import { connectToServe } from "../../attach/ServeHttp.js";
import { McpStdioProxy } from "../../attach/McpStdioProxy.js";
import {
  BRIDGE_FLAG_NAMES,
  BRIDGE_FLAGS_HELP,
  parseBridgeFlags,
  type BridgeFlagOptions,
} from "../../runtime/bridgeFlags.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { parseHostPort } from "../serveCommand.js";
import { generateToken } from "../../http/bearerToken.js";
import { ProcessScope } from "../../runtime/ProcessScope.js";
import { EMBEDDED_CONSOLE_DEFAULT, startServing } from "../../runtime/startServing.js";
import { onStopSignals } from "../../../commandLine/stopSignals.js";
import { createMcpServer } from "../../mcp/createMcpServer.js";
import { ROUTES } from "../../../wire/routes.js";
import { parseFlags, type FlagSchema } from "../../../commandLine/parseFlags.js";

/** Every flag `mcp` takes: its own and the bridge's. */
/** mcp's own flags; the bridge flags (embedded mode) are taken out first, by parseBridgeFlags. */
const MCP_FLAGS = {
  "deadline-ms": { type: "string" },
  bridge: { type: "string" },
  token: { type: "string" },
  http: { type: "string" },
} as const satisfies FlagSchema;

export const MCP_FLAG_NAMES: readonly string[] = [...Object.keys(MCP_FLAGS), ...BRIDGE_FLAG_NAMES];

/**
 * This install's built CLI, as a host entry must name it. A host starts its
 * servers outside this folder, where `npx armbridge` would look the name up
 * on the public npm registry (and, with no terminal to ask, run whatever is
 * published under it): host entries name `node` and this absolute path.
 */
export const CLI_MAIN_PATH = join(packageRoot(), "dist", "src", "surfaces", "cli", "main.js");
const hostEntry = (args: readonly string[], env?: Record<string, string>): string =>
  JSON.stringify({ command: "node", args: [CLI_MAIN_PATH, ...args], ...(env ? { env } : {}) });

export const MCP_HELP = `Usage: armbridge mcp --bridge URL [--token T]
       armbridge mcp (--serial LINK | --ros) [--config FILE] [--data DIR] [--deadline-ms MS] [--http HOST:PORT] [--token T]

Serves the arm's tools to an MCP host over stdio (stdout is the MCP channel;
logs go to stderr). Ends cleanly (exit 0) when the host goes away — stdin
closed, or stdout closed (EPIPE) — and on SIGINT, SIGTERM or SIGHUP.

With --bridge URL, a relay to a running \`armbridge serve\` for hosts that
only speak stdio: every message goes to serve's own MCP endpoint (URL/mcp,
Streamable HTTP), where the arm, its ledger, locks, approvals and console
are, shared with every other client. A host that speaks HTTP can use that
endpoint directly. A request whose answer is lost (serve restarted, the
connection dropped) is sent again with the same call id: serve answers a
motion it already ran from its ledger, never moving twice.
  --bridge URL         the serve to relay to (its "http" in the ready line)
  --token T            serve's bearer token (default $ARMBRIDGE_TOKEN)
Example host entry (this install's own CLI, by absolute path):
  ${hostEntry(["mcp", "--bridge", "http://127.0.0.1:8640"], { ARMBRIDGE_TOKEN: "..." })}

Without --bridge (embedded), a bridge of its own in this process, with its
own operator console (the same API and console as serve, HALT included)
whose URL and token are printed on stderr. Calls still waiting when it ends
answer unknown; motions under way are not stopped and settle at the next start.
  --http HOST:PORT     where the console listens (default ${EMBEDDED_CONSOLE_DEFAULT}: loopback, a free port)
  --token T            the console's token (default $ARMBRIDGE_TOKEN, else a new one)
Example host entry:
  ${hostEntry(["mcp", "--serial", "/dev/ttyACM0"])}

Results: structuredContent is the call's result (status, action_id, message,
timed_out, settled_by, ...); the text content is the message and the same
JSON. isError is true only for rejected, failed and skipped: nothing happened
and a corrected or later re-run is safe. unknown and blocked are NOT errors, so
that no host retries them: an operator must confirm the action first.
A host may pass _meta {"armbridge/call_id": "..."} to make a re-sent call
return the recorded result instead of moving again: a random id (another
client could take one it can guess); ids beginning mcp: are an MCP session's
own and refused.

Host entries name this install explicitly (node and the absolute path of
its built CLI, as above; \`npm run build\` first), never \`npx armbridge\`:
a host starts servers outside this folder, where npx would fetch a package
of that name from the public registry. (\`npm link\` in the armbridge folder
puts \`armbridge\` on PATH, for hosts that take a bare command.)

Approval gates (config approval) are answered in the console: serve's with
--bridge, this process's own when embedded.

Flags:
  --deadline-ms MS     run deadline each tool call inherits (default 60000)

${BRIDGE_FLAGS_HELP}
`;

/** `armbridge mcp`. `io.stdin` is for in-process tests; the process's stdin otherwise. */
export async function run(argv: readonly string[], io: CliIo & { readonly stdin?: Readable }): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  let mode: McpMode;
  try {
    mode = parseMcpArgs(argv, io.env);
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge mcp: ${e.message} [${e.code}]\n`);
    return 2;
  }
  const logger = createLogger().child({ command: "mcp" });
  if (mode.kind === "relay") return relay(mode, io, logger);
  const scope = new ProcessScope();
  const bridge = await startEmbedded(mode, scope, io, logger);
  if (!bridge) return 1;
  const code = await serveStdio(bridge, mode, scope, io, logger);
  // Ends every wait first (calls in flight answer `unknown` and stay `started` for the next start to
  // reconcile), so neither the transport nor the bridge is held open by them; then the transport, then the arm link and ledger.
  if ((await scope.closeWithin(SHUTDOWN_LIMIT_MS)) === "timed_out") {
    logger.error({ limit_ms: SHUTDOWN_LIMIT_MS }, "MCP shutdown did not finish in time");
    io.stderr.write(`armbridge mcp: shutdown did not finish within ${SHUTDOWN_LIMIT_MS} ms\n`);
    return 1;
  }
  return code;
}

/** The console's port, the bridge, the console; undefined (said on stderr, the scope closed) when one failed. */
async function startEmbedded(
  mode: Extract<McpMode, { kind: "embedded" }>,
  scope: ProcessScope,
  io: CliIo,
  logger: Logger,
): Promise<Bridge | undefined> {
  let bridgeUp = false;
  try {
    const serving = await startServing({
      scope,
      http: {
        host: mode.host,
        port: mode.port,
        token: mode.token ?? generateToken(),
        operatorToken: generateToken(),
        logger,
      },
      bridge: { ...mode.flags, logger },
      onBridge: (bridge) => {
        bridgeUp = true;
        for (const w of bridge.startupWarnings) io.stderr.write(`armbridge mcp: WARNING: ${w}\n`);
      },
    });
    if (!serving) throw new Error("mcp: started without a stop signal, yet stopped");
    for (const w of serving.http.security.warnings) io.stderr.write(`armbridge mcp: warning: ${w.message}\n`);
    const consoleUrl = `${serving.http.url}/console#token=${encodeURIComponent(serving.http.operatorToken)}`;
    io.stderr.write(
      `armbridge mcp: console ${consoleUrl} (watch, HALT, approve, confirm while the host drives the arm)\n`,
    );
    return serving.bridge;
  } catch (error) {
    await scope.close();
    const e = asArmbridgeError(error);
    io.stderr.write(
      `armbridge mcp: ${bridgeUp ? "cannot serve the console" : "cannot start the bridge"}: ${e.message} [${e.code}]\n`,
    );
    return undefined;
  }
}

/** MCP on stdio until the host goes away or a stop signal; the exit code. */
async function serveStdio(
  bridge: Bridge,
  mode: Extract<McpMode, { kind: "embedded" }>,
  scope: ProcessScope,
  io: CliIo & { readonly stdin?: Readable },
  logger: Logger,
): Promise<number> {
  const stdin = io.stdin ?? process.stdin;
  let stopListening: (() => void) | undefined;
  let hostGone: ((why: string) => void) | undefined;
  const ended = new Promise<string>((resolve) => {
    hostGone = resolve;
    stopListening = onStopSignals(resolve, "once");
    stdin.once("end", () => resolve("stdin closed"));
    stdin.once("close", () => resolve("stdin closed"));
  });
  // The SDK's stdio entry picks the protocol era from the host's first message
  // (initialize: 2025-11-25; a request with _meta: 2026-07-28) and pins one
  // server for the connection; each server it makes answers from this bridge.
  // The host going away is seen on stdin and stdout, not on a server's close: a
  // server made only to answer a `server/discover` probe is closed while the host stays.
  const factory = (): ReturnType<typeof createMcpServer> =>
    createMcpServer(bridge, { logger, deadlineMs: mode.deadlineMs, session: () => "stdio" });
  const transport = new StdioServerTransport(stdin, io.stdout as Writable);
  // A host that went away leaves a pipe nobody reads: the next answer meets
  // EPIPE, which without a listener is an uncaught error that kills the
  // process before the ledger is closed. Left attached after shutdown on
  // purpose: an answer already queued may still fail on its way out.
  const onStdoutError = (error: NodeJS.ErrnoException): void =>
    hostGone?.(`stdout closed (${error.code ?? error.message})`);
  io.stdout.on("error", onStdoutError);
  try {
    const served = serveMcpStdio(factory, {
      transport,
      onerror: (error) => logger.warn({ err: error.message }, "MCP on stdio: a message could not be served"),
    });
    scope.add("MCP transport", () => served.close().catch(() => undefined));
    scope.add("waits", () => bridge.endWaits());
    logger.info({ tools: bridge.registry.names() }, "MCP server ready on stdio");
    const why = await ended;
    logger.info(
      { why },
      "MCP server stopping: ending waits, closing the transport and the ledger (motions under way are not stopped)",
    );
    return 0;
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge mcp: ${e.message} [${e.code}]\n`);
    return 1;
  } finally {
    stopListening?.();
  }
}

/** How long shutdown may take before we say so and give up waiting. */
const SHUTDOWN_LIMIT_MS = 10_000;

type McpMode =
  | { readonly kind: "relay"; readonly url: string; readonly token: string }
  | {
      readonly kind: "embedded";
      readonly flags: BridgeFlagOptions;
      readonly deadlineMs: number | undefined;
      readonly host: string;
      readonly port: number;
      readonly token: string | undefined;
    };

const EMBEDDED_ONLY = [
  "--serial",
  "--ros",
  "--ros-args",
  "--params-file",
  "--config",
  "--data",
  "--adopt-ledger",
  "--deadline-ms",
  "--http",
] as const;

function parseMcpArgs(argv: readonly string[], env: NodeJS.ProcessEnv): McpMode {
  const usage = (message: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
  const bridgeAt = argv.findIndex((a) => a === "--bridge" || a.startsWith("--bridge="));
  if (bridgeAt !== -1) {
    // Said before the parse, which would only call them unknown.
    const given = EMBEDDED_ONLY.filter((f) => argv.some((a) => a === f || a.startsWith(`${f}=`)));
    if (given.length > 0)
      throw usage(
        `--bridge relays to a running serve, which owns the arm, its config, its ledger and its console: drop ${given.join(", ")}`,
      );
  }
  const parsed = bridgeAt === -1 ? parseBridgeFlags(argv, { transport: "required" }) : undefined;
  const own = parseFlags(parsed ? parsed.rest : argv, MCP_FLAGS, "positionals");
  if (!own.ok) throw usage(`${own.message}; see armbridge mcp --help`);
  const rest = own.positionals;
  const values = new Map<string, string>(
    Object.entries(own.values).flatMap(([name, value]) => (typeof value === "string" ? [[`--${name}`, value]] : [])),
  );
  const empty = [...values].find(([, value]) => value === "");
  if (empty) throw usage(`${empty[0]} needs a value`);
  const token = values.get("--token") ?? (env.ARMBRIDGE_TOKEN || undefined);
  const url = values.get("--bridge");
  if (url !== undefined) {
    if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}; see armbridge mcp --help`);
    if (!/^https?:\/\/[^/]+/.test(url))
      throw usage(
        `--bridge must be the http(s) URL of a running serve, like http://127.0.0.1:8640 (got ${JSON.stringify(url)})`,
      );
    if (!token) throw usage("--bridge needs serve's token: --token T or ARMBRIDGE_TOKEN (serve prints it at start)");
    return { kind: "relay", url, token };
  }
  if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}; see armbridge mcp --help`);
  const deadline = values.get("--deadline-ms");
  let deadlineMs: number | undefined;
  if (deadline !== undefined) {
    deadlineMs = Number(deadline);
    if (!Number.isInteger(deadlineMs) || deadlineMs <= 0)
      throw usage("--deadline-ms needs a positive integer (milliseconds)");
  }
  const { host, port } = parseHostPort(values.get("--http") ?? EMBEDDED_CONSOLE_DEFAULT);
  return { kind: "embedded", flags: (parsed as NonNullable<typeof parsed>).options, deadlineMs, host, port, token };
}

/** `mcp --bridge`: stdio on one side, serve's /mcp on the other, until the host goes away. */
async function relay(
  mode: Extract<McpMode, { kind: "relay" }>,
  io: CliIo & { readonly stdin?: Readable },
  logger: Logger,
): Promise<number> {
  const http = connectToServe(mode.url, mode.token);
  const stdin = io.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, io.stdout as Writable);
  const proxy = new McpStdioProxy({ http: http.client, log: logger, toHost: (m) => transport.send(m) });
  let stopListening: (() => void) | undefined;
  const ended = new Promise<string>((resolve) => {
    stopListening = onStopSignals(resolve, "once");
    stdin.once("end", () => resolve("stdin closed"));
    stdin.once("close", () => resolve("stdin closed"));
    transport.onclose = () => resolve("transport closed");
    io.stdout.on("error", (error: NodeJS.ErrnoException) => resolve(`stdout closed (${error.code ?? error.message})`));
  });
  transport.onmessage = (message) => void proxy.fromHost(message);
  transport.onerror = (error) => logger.warn({ err: error.message }, "a message from the host could not be read");
  try {
    await transport.start();
    io.stderr.write(
      `armbridge mcp: relaying to ${http.client.url}${ROUTES.mcpPost.path}; watch and stop the arm in that serve's console\n`,
    );
    const why = await ended;
    logger.info({ why }, "MCP relay stopping: the session on serve ends; motions under way there are not stopped");
    return 0;
  } finally {
    stopListening?.();
    await proxy.close();
    await transport.close().catch(() => undefined);
    await http.close();
  }
}
