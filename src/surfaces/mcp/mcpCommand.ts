import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Bridge } from "../../bridge/Bridge.js";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import { createLogger } from "../../observability/logger.js";
import { BRIDGE_FLAGS_HELP, parseBridgeFlags } from "../cli/bridgeFlags.js";
import type { CliIo } from "../cli/CliIo.js";
import { createMcpServer } from "./createMcpServer.js";

export const MCP_HELP = `Usage: armbridge mcp (--serial LINK | --ros) [--config FILE] [--data DIR] [--deadline-ms MS]

Serves the arm's tools to an MCP host over stdio (stdout is the MCP channel;
logs go to stderr). Ends cleanly (ledger and arm link closed, exit 0) when the
host goes away — stdin closed, or stdout closed (EPIPE) — and on SIGINT,
SIGTERM or SIGHUP. Calls still waiting end as unknown; motions under way are
not stopped and settle at the next start.

Example host entry: {"command": "armbridge", "args": ["mcp", "--serial", "/dev/ttyACM0"]}

Results: structuredContent is the call's result (status, action_id, message,
timed_out, settled_by, ...); the text content is the message and the same
JSON. isError is true only for rejected, failed and skipped: nothing happened
and a corrected or later re-run is safe. unknown and blocked are NOT errors, so
that no host retries them: an operator must confirm the action first.
A host may pass _meta {"armbridge/call_id": "..."} to make a re-sent call
return the recorded result instead of moving again.

Over stdio there is no HTTP API or console where an operator could approve a
call: a config with approval gates (approval: {tool: always}, or joints) is
refused at start (ARMB_ERR_APPROVAL_UNANSWERABLE). To gate calls on approval,
run the arm under \`armbridge serve\` (console, \`armbridge approve\`).

  --deadline-ms MS     run deadline each tool call inherits (default 60000)

${BRIDGE_FLAGS_HELP}
`;

/** `armbridge mcp`. `io.stdin` is for in-process tests; the process's stdin otherwise. */
export async function run(argv: readonly string[], io: CliIo & { readonly stdin?: Readable }): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  let parsed;
  let deadlineMs: number | undefined;
  try {
    parsed = parseBridgeFlags(argv, { transport: "required" });
    const rest = [...parsed.rest];
    const at = rest.indexOf("--deadline-ms");
    if (at !== -1) {
      const value = Number(rest[at + 1]);
      if (!Number.isInteger(value) || value <= 0) throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: "--deadline-ms needs a positive integer (milliseconds)" });
      deadlineMs = value;
      rest.splice(at, 2);
    }
    if (rest.length > 0) throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: `unexpected argument ${JSON.stringify(rest[0])}; see armbridge mcp --help` });
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge mcp: ${e.message} [${e.code}]\n`);
    return 2;
  }

  const logger = createLogger().child({ command: "mcp" });
  let bridge: Bridge;
  try {
    bridge = await Bridge.start({ config: parsed.options.config, transport: parsed.options.transport, dataDir: parsed.options.dataDir, otherArm: parsed.options.otherArm, logger, operatorSurface: MCP_OPERATOR_SURFACE });
    for (const w of bridge.startupWarnings) io.stderr.write(`armbridge mcp: WARNING: ${w}\n`);
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge mcp: cannot start the bridge: ${e.message} [${e.code}]\n`);
    return 1;
  }

  const stdin = io.stdin ?? process.stdin;
  const server = createMcpServer(bridge, { logger, deadlineMs });
  const transport = new StdioServerTransport(stdin, io.stdout as Writable);
  let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
  let hostGone: ((why: string) => void) | undefined;
  const ended = new Promise<string>((resolve) => {
    onSignal = (signal) => resolve(signal);
    hostGone = resolve;
    for (const s of MCP_STOP_SIGNALS) process.once(s, onSignal);
    stdin.once("end", () => resolve("stdin closed"));
    stdin.once("close", () => resolve("stdin closed"));
    server.onclose = () => resolve("transport closed");
  });
  // A host that went away leaves a pipe nobody reads: the next answer meets
  // EPIPE, which without a listener is an uncaught error that kills the
  // process before the ledger is closed. Left attached after shutdown on
  // purpose: an answer already queued may still fail on its way out.
  const onStdoutError = (error: NodeJS.ErrnoException): void => hostGone?.(`stdout closed (${error.code ?? error.message})`);
  io.stdout.on("error", onStdoutError);
  let code = 0;
  try {
    await server.connect(transport);
    logger.info({ tools: bridge.registry.names() }, "MCP server ready on stdio");
    const why = await ended;
    logger.info({ why }, "MCP server stopping: ending waits, closing the transport and the ledger (motions under way are not stopped)");
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge mcp: ${e.message} [${e.code}]\n`);
    code = 1;
  } finally {
    if (onSignal) for (const s of MCP_STOP_SIGNALS) process.off(s, onSignal);
  }
  if (!(await closeWithin(SHUTDOWN_LIMIT_MS, bridge, () => server.close()))) {
    logger.error({ limit_ms: SHUTDOWN_LIMIT_MS }, "MCP shutdown did not finish in time");
    io.stderr.write(`armbridge mcp: shutdown did not finish within ${SHUTDOWN_LIMIT_MS} ms\n`);
    return 1;
  }
  return code;
}

/** Over stdio there is no HTTP API or console: nobody could answer an approval request (its gates are refused at start). */
const MCP_OPERATOR_SURFACE = { kind: "none", why: "`armbridge mcp` over stdio has no HTTP API or console where an operator could approve" } as const;

/** SIGHUP too: a host (or terminal) that closed must shut the bridge down as cleanly as Ctrl-C. */
const MCP_STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How long shutdown may take before we say so and give up waiting. */
const SHUTDOWN_LIMIT_MS = 10_000;

/**
 * Ends every wait first (calls in flight answer `unknown` and stay `started`
 * for the next start to reconcile), so neither the transport nor the bridge
 * is held open by them; then the transport, then the arm link and ledger.
 */
async function closeWithin(limitMs: number, bridge: Bridge, closeServer: () => Promise<void>): Promise<boolean> {
  const closed = (async () => {
    bridge.executor.close();
    await closeServer().catch(() => undefined);
    await bridge.close();
    return true;
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
  });
  try {
    return await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}
