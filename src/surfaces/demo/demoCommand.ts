import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseFlags } from "../../commandLine/parseFlags.js";
import { pino } from "pino";
import { packageRoot } from "../../config/packageRoot.js";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import { BRIDGE_FLAG_NAMES, BRIDGE_FLAGS_HELP, DEFAULT_DATA_DIR, parseBridgeFlags } from "../runtime/bridgeFlags.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { ProcessScope } from "../runtime/ProcessScope.js";
import { startServing, type Serving, type StartedSim } from "../runtime/startServing.js";
import { onStopSignals } from "../../commandLine/stopSignals.js";
import { consoleUrlOf, type DemoOptions, type DemoRun } from "./DemoRun.js";
import { runErSession } from "./erSession.js";
import { runScriptedSession } from "./scriptedSession.js";
import { DEMO_BUS_HELP, demoBusOf } from "./demoBus.js";
import { socatAvailable, spawnSimulator } from "../../../firmware-sim/spawnSimulator.js";

/** The joint the bundled session (config/demo-session.jsonl, turn 4) expects the simulator to stall on cue, so the demo shows an `unknown`. */
export const DEMO_STALL_JOINT = "wrist_2";

/** What a real model is asked to do when GEMINI_API_KEY is set. */
export const DEMO_INSTRUCTION =
  "You drive a simulated 6-joint arm with a gripper. Show how the bridge handles motion calls: " +
  "1) in ONE turn, call move_joints twice in parallel: shoulder_pan to 0.8, and separately wrist_1 to -1.0; " +
  "2) in ONE turn, call move_joints twice: elbow to 0.3, then elbow to 1.2 together with wrist_2 to 0.5; " +
  "3) move shoulder_pan to -1.2 at speed 0.15 (slow: its wait may time out, the bridge then observes the arm); " +
  "4) move wrist_3 to 1.5. Read each result's status; never re-run a call whose status is unknown or blocked. " +
  "Finish with get_arm_state and a two-sentence summary.";

export const DEMO_HELP = `Usage: armbridge demo [--exit-after-session] [--session FILE] [--instruction TEXT] [--model ID] [--base-url URL]
                     [--seed N] [--link pty|tcp] [--bus PROTOCOL] [--http HOST:PORT] [--token T] [--data DIR] [--config FILE]

The whole thing in one command (\`npm start\`): starts firmware-sim as a child
process (PTY when socat is installed, else TCP) and one serve on it — the
bridge with a SQLite ledger under ${DEFAULT_DATA_DIR}/demo-<time>/ (or --data DIR), the
HTTP API and the operator console — then attaches an agent session to that
serve over its HTTP API, as \`armbridge agent --bridge\` does, and narrates it
on stdout: with GEMINI_API_KEY, a Gemini model on --instruction; without it,
the bundled scripted session (config/demo-session.jsonl) through the same
agent loop. Everything it does is in the console the demo prints. Then it
keeps serving the console until Ctrl-C.
The agent session is preceded by a Gemini Robotics-ER session on a simulated
arm of its own and its overhead camera (config/er-session.jsonl, or the real
ER model with GEMINI_API_KEY), attached the same way to a serve of its own
whose console URL is printed too: look, point at a block, move above it,
close the gripper; its ledger, ground truth and the pictures it was given are
under <data>/er/ (frames in <data>/er/frames/).

Flags:
  --exit-after-session   stop after the session instead of serving (tests, CI)
  --session FILE         scripted session to replay (default config/demo-session.jsonl)
  --instruction TEXT     what the model is asked (with GEMINI_API_KEY)
  --model ID             Gemini model id, or replay:FILE
  --base-url URL         another Gemini endpoint (the SDK's httpOptions.baseUrl)
  --seed N               firmware-sim seed (default 1)
  --link pty|tcp         firmware-sim link (default pty when socat is on PATH)
  --stall-joint NAME     axis whose next motion the simulator stalls half-way (default ${DEMO_STALL_JOINT}; "none" for none)
${DEMO_BUS_HELP}
  --http HOST:PORT       where the API and console listen (default 127.0.0.1:0, any free port)
  --token T              API bearer token (default: generated)
Logs go to <data>/armbridge.log and <data>/firmware-sim.log; firmware-sim's
ground truth to <data>/effects.jsonl; the session transcript to <data>/transcript.jsonl.
With --serial LINK or --ros the session drives that arm instead of a simulator.

${BRIDGE_FLAGS_HELP}
`;

/** `armbridge demo` (`npm start`): the simulator and a serve on it, the ER session, the scripted session, then serving until Ctrl-C. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(DEMO_HELP);
    return 0;
  }
  let options: DemoOptions;
  try {
    options = parseDemoArgs(argv);
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge demo: ${e.message} [${e.code}]\n`);
    return 2;
  }
  const { demo, dispose } = openDemo(options, io);
  try {
    demo.say(`armbridge demo (pid ${process.pid})`);
    const serving = await startDemoServing(demo);
    if (!serving || demo.shutdown.signal.aborted) return 0;
    await runErStep(demo);
    if (demo.shutdown.signal.aborted) return demo.exitCode;
    await runScriptedSession(demo, serving);
    if (options.exitAfterSession || demo.shutdown.signal.aborted) return demo.exitCode;
    demo.say();
    demo.say(
      `Serving. Open ${consoleUrlOf(serving, options)} to confirm or reject unknown actions. Press Ctrl-C to stop.`,
    );
    await new Promise<void>((resolve) => {
      if (demo.shutdown.signal.aborted) resolve();
      else demo.shutdown.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return demo.exitCode;
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge demo: ${e.message} [${e.code}]\n`);
    return 1;
  } finally {
    await dispose();
  }
}

/**
 * The narrative, the log file, and what ends the demo: a stop signal, or a
 * reader that went away (`armbridge demo | head -1`, a closed terminal) —
 * nobody hears the narrative any more, and an unhandled EPIPE would kill this
 * process before it stops the simulator. `dispose` closes what the demo
 * opened, last opened first (stop taking requests, then release the arm, then
 * stop the arm), and says how it went.
 */
function openDemo(options: DemoOptions, io: CliIo): { demo: DemoRun; dispose: () => Promise<void> } {
  let stdoutGone = false;
  const say = (line = ""): void => {
    if (!stdoutGone) io.stdout.write(line + "\n");
  };
  mkdirSync(options.dataDir, { recursive: true });
  // The terminal is for the narrative; the logs go to a file in the data folder.
  const logger: Logger = pino(
    { level: io.env.ARMBRIDGE_LOG_LEVEL ?? "info", base: { app: "armbridge", command: "demo" } },
    pino.destination({ dest: join(options.dataDir, "armbridge.log"), sync: true, mkdir: true }),
  );
  const shutdown = new AbortController();
  const stopListening = onStopSignals((signal) => {
    if (!shutdown.signal.aborted) say(`\n${signal}: shutting down (bridge, HTTP, simulator)...`);
    shutdown.abort(signal);
  }, "every");
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    stdoutGone = true;
    logger.warn({ code: error.code }, "stdout closed; shutting down");
    shutdown.abort("stdout closed");
  };
  io.stdout.on("error", onStdoutError);
  // Paths as the user can type them from here: relative below the current folder, absolute elsewhere.
  const shown = (p: string): string => {
    const r = relative(process.cwd(), p);
    return r === "" ? "." : r.startsWith("..") || isAbsolute(r) ? resolve(p) : r;
  };
  const demo: DemoRun = { options, io, say, shown, logger, shutdown, scope: new ProcessScope(), exitCode: 0 };
  const dispose = async (): Promise<void> => {
    let closeFailed = false;
    await demo.scope.close((what, error) => {
      closeFailed = true;
      logger.error({ err: String(error) }, `${what} close failed`);
    });
    stopListening();
    io.stdout.off("error", onStdoutError);
    logger.flush();
    if (shutdown.signal.aborted)
      say(
        closeFailed
          ? `Stopped, but not everything closed cleanly (see ${join(options.dataDir, "armbridge.log")}).`
          : "Stopped cleanly.",
      );
  };
  return { demo, dispose };
}

/** The port (bound first, as serve does: a taken port is said before a simulator starts), the simulator, the bridge, the API. */
async function startDemoServing(demo: DemoRun): Promise<Serving | undefined> {
  const { options, say, shown, io } = demo;
  const serving = await startServing({
    scope: demo.scope,
    http: { host: options.host, port: options.port, token: options.token, logger: demo.logger },
    bridge: { config: options.config, transport: options.transport, dataDir: options.dataDir, logger: demo.logger },
    sim: () => startDemoSim(demo),
    signal: demo.shutdown.signal,
    onBridge: (bridge) => {
      for (const w of bridge.startupWarnings) io.stderr.write(`armbridge demo: WARNING: ${w}\n`);
      say(`  ledger     ${shown(join(options.dataDir, "ledger.sqlite"))}`);
      say(`  logs       ${shown(join(options.dataDir, "armbridge.log"))}`);
    },
  });
  if (!serving) return undefined;
  say(`  API        ${serving.http.url}/v1 (Authorization: Bearer ${options.token})`);
  say(`  console    ${consoleUrlOf(serving, options)}`);
  say();
  return serving;
}

/**
 * firmware-sim as a child process, narrated. Its ending on its own ends the
 * demo: exit 0 means it was told to (Ctrl-C in a terminal reaches it too),
 * anything else is a crash.
 */
async function startDemoSim(demo: DemoRun): Promise<StartedSim> {
  const { options, say, shown } = demo;
  const sim = await spawnSimulator({
    link: options.link,
    seed: options.seed,
    effectsLog: join(options.dataDir, "effects.jsonl"),
    logFile: join(options.dataDir, "firmware-sim.log"),
    flags: [
      ...(options.stallJoints.length > 0 ? ["--stall-joint", options.stallJoints.join(",")] : []),
      ...(options.bus ? ["--bus", options.bus.protocol] : []),
      ...(options.config === undefined ? [] : ["--config", options.config]),
    ],
  });
  let stopping = false;
  void sim.exited.then((code) => {
    if (demo.shutdown.signal.aborted || stopping) return;
    if (code !== 0) {
      say(`\nfirmware-sim exited with code ${code} (see ${join(options.dataDir, "firmware-sim.log")}); shutting down.`);
      demo.exitCode = 1;
    }
    demo.shutdown.abort("firmware-sim exited");
  });
  say(
    `  simulator  firmware-sim${options.bus ? ` --bus ${options.bus.protocol}` : ""} (pid ${sim.pid}, seed ${options.seed}) on ${options.link === "pty" ? "a PTY" : "TCP"}: ${sim.link}`,
  );
  if (options.stallJoints.length > 0)
    say(
      `             its next ${options.stallJoints.join(", ")} motion will stall half-way (a fault on cue, to show an unknown)`,
    );
  say(`  effects    ${shown(join(options.dataDir, "effects.jsonl"))} (the simulator's ground truth)`);
  return {
    transport: { kind: "serial", link: sim.link },
    stop: async () => {
      stopping = true;
      const code = await sim.stop();
      demo.logger.info({ exit_code: code }, "firmware-sim stopped");
    },
  };
}

/**
 * The ER session (its own module, on a simulated arm of its own) goes first; an arm given on the
 * command line has no simulated camera, and a bus arm's config ships none (the bus demo is about the bus).
 */
async function runErStep(demo: DemoRun): Promise<void> {
  const { options, say } = demo;
  if (options.bus) {
    say(
      "ER session skipped: it runs on the simulated 6-axis arm and its overhead camera; `armbridge demo` without --bus shows it.\n",
    );
    return;
  }
  if (options.transport) return;
  const er = await runErSession({
    dataDir: join(options.dataDir, "er"),
    config: options.config,
    link: options.link,
    seed: options.seed,
    logger: demo.logger,
    say,
    shown: demo.shown,
    env: demo.io.env,
    signal: demo.shutdown.signal,
    baseUrl: options.baseUrl,
    token: options.token,
  });
  if (er.failed) demo.exitCode = 1;
}

/** The demo's own flags (the bridge flags are taken first); its help names each. */
export const DEMO_FLAGS = {
  "exit-after-session": { type: "boolean" },
  session: { type: "string" },
  instruction: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  seed: { type: "string" },
  link: { type: "string" },
  "stall-joint": { type: "string" },
  http: { type: "string" },
  token: { type: "string" },
  bus: { type: "string" },
} as const;

/** Every flag `demo` takes: its own and the bridge's. */
export const DEMO_FLAG_NAMES: readonly string[] = [...Object.keys(DEMO_FLAGS), ...BRIDGE_FLAG_NAMES];

function parseDemoArgs(argv: readonly string[]): DemoOptions {
  const usage = (message: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
  const bridgeFlags = parseBridgeFlags(argv, { transport: "optional" });
  const parsed = parseFlags(bridgeFlags.rest, DEMO_FLAGS, "no positionals");
  if (!parsed.ok) throw usage(`${parsed.message}; see armbridge demo --help`);
  const values = parsed.values;
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw usage(`--seed ${JSON.stringify(values.seed)} must be a non-negative integer`);
  const link = values.link ?? (socatAvailable() ? "pty" : "tcp");
  if (link !== "pty" && link !== "tcp") throw usage(`--link ${JSON.stringify(link)} must be pty or tcp`);
  let host = "127.0.0.1";
  let port = 0;
  if (values.http !== undefined) {
    const m = /^(.+):(\d{1,5})$/.exec(values.http);
    if (!m || Number(m[2]) > 65535)
      throw usage(`--http ${JSON.stringify(values.http)} must be HOST:PORT (port 0 for any free port)`);
    host = m[1] ?? host;
    port = Number(m[2]);
  }
  if (values["base-url"] !== undefined && !/^https?:\/\//.test(values["base-url"]))
    throw usage(`--base-url ${JSON.stringify(values["base-url"])} must be an http:// or https:// URL`);
  if (values.token !== undefined && values.token.length < 8) throw usage("--token must be at least 8 characters");
  const bus = demoBusOf(values.bus, bridgeFlags.options.config);
  if (bus && bridgeFlags.options.transport)
    throw usage(
      "--bus starts a simulated servo bus; with --serial the config's bus: section already selects the protocol",
    );
  const stall = values["stall-joint"] ?? bus?.stallJoint ?? DEMO_STALL_JOINT;
  const dataGiven = argv.some((a) => a === "--data" || a.startsWith("--data="));
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return {
    exitAfterSession: values["exit-after-session"] ?? false,
    session: values.session ?? bus?.session ?? join(packageRoot(), "config", "demo-session.jsonl"),
    instruction: values.instruction ?? DEMO_INSTRUCTION,
    model: values.model,
    baseUrl: values["base-url"],
    seed,
    link,
    stallJoints: stall === "none" ? [] : stall.split(",").filter((s) => s !== ""),
    host,
    port,
    token: values.token ?? randomBytes(16).toString("hex"),
    dataDir: (dataGiven ? bridgeFlags.options.dataDir : undefined) ?? join(DEFAULT_DATA_DIR, `demo-${stamp}`),
    config: bus?.config ?? bridgeFlags.options.config,
    transport: bridgeFlags.options.transport,
    bus,
  };
}
