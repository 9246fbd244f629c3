import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { Bridge } from "../../bridge/Bridge.js";
import type { TransportChoice } from "../../bridge/createTransport.js";
import { packageRoot } from "../../config/packageRoot.js";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import { BRIDGE_FLAGS_HELP, DEFAULT_DATA_DIR, parseBridgeFlags } from "../runtime/bridgeFlags.js";
import type { CliIo } from "../runtime/CliIo.js";
import { GeminiModelClient } from "../gemini/GeminiModelClient.js";
import type { ModelClient } from "../gemini/ModelClient.js";
import { ReplayModelClient } from "../gemini/ReplayModelClient.js";
import { runAgent } from "../gemini/runAgent.js";
import { agentClient } from "../gemini/agentClient.js";
import { RemoteBridge } from "../attach/RemoteBridge.js";
import { bindHttpPort, type BoundHttpPort } from "../http/bindHttpPort.js";
import { serveHttpOnPort, type RunningHttpServer } from "../http/startHttpServer.js";
import { runErSession } from "./erSession.js";
import { SessionNarrator } from "./SessionNarrator.js";
import { DEMO_BUS_HELP, demoBusOf, type DemoBus } from "./demoBus.js";
import { socatAvailable, spawnSimulator, type SimChild } from "../../../firmware-sim/spawnSimulator.js";

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

/** Each ends the demo cleanly, simulator and socat included; SIGHUP is a closed terminal. */
const DEMO_STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

interface DemoOptions {
  readonly exitAfterSession: boolean;
  readonly session: string;
  readonly instruction: string;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly seed: number;
  readonly link: "pty" | "tcp";
  readonly stallJoints: readonly string[];
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly dataDir: string;
  readonly config: string | undefined;
  /** An arm given on the command line: no simulator is started. */
  readonly transport: TransportChoice | undefined;
  /** --bus: the simulator is a servo bus, and config, session and stall joint default to the bus arm's. */
  readonly bus: DemoBus | undefined;
}

/** `armbridge demo` (`npm start`). */
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
  // A reader that went away (`armbridge demo | head -1`, a closed terminal)
  // ends the demo like Ctrl-C: nobody hears the narrative any more, and an
  // unhandled EPIPE would kill this process before it stops the simulator.
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
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!shutdown.signal.aborted) say(`\n${signal}: shutting down (bridge, HTTP, simulator)...`);
    shutdown.abort(signal);
  };
  for (const s of DEMO_STOP_SIGNALS) process.on(s, onSignal);
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    stdoutGone = true;
    logger.warn({ code: error.code }, "stdout closed; shutting down");
    shutdown.abort("stdout closed");
  };
  io.stdout.on("error", onStdoutError);

  let sim: SimChild | undefined;
  let bridge: Bridge | undefined;
  let httpPort: BoundHttpPort | undefined;
  let http: RunningHttpServer | undefined;
  let unsubscribe: (() => void) | undefined;
  let remote: RemoteBridge | undefined;
  let exitCode = 0;
  let closeFailed = false;
  let stoppingSim = false;
  try {
    // Paths as the user can type them from here: relative below the current folder, absolute elsewhere.
    const shown = (p: string): string => {
      const r = relative(process.cwd(), p);
      return r === "" ? "." : r.startsWith("..") || isAbsolute(r) ? resolve(p) : r;
    };
    say(`armbridge demo (pid ${process.pid})`);
    // Bound first, as serve does: a taken port is said before a simulator is started or an arm is touched.
    httpPort = await bindHttpPort({ host: options.host, port: options.port });
    let transport = options.transport;
    if (!transport) {
      sim = await spawnSimulator({
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
      transport = { kind: "serial", link: sim.link };
      // The simulator ending on its own ends the demo: exit 0 means it was told to
      // (Ctrl-C in a terminal reaches it too), anything else is a crash.
      void sim.exited.then((code) => {
        if (shutdown.signal.aborted || stoppingSim) return;
        if (code !== 0) {
          say(
            `\nfirmware-sim exited with code ${code} (see ${join(options.dataDir, "firmware-sim.log")}); shutting down.`,
          );
          exitCode = 1;
        }
        shutdown.abort("firmware-sim exited");
      });
      say(
        `  simulator  firmware-sim${options.bus ? ` --bus ${options.bus.protocol}` : ""} (pid ${sim.pid}, seed ${options.seed}) on ${options.link === "pty" ? "a PTY" : "TCP"}: ${sim.link}`,
      );
      if (options.stallJoints.length > 0)
        say(
          `             its next ${options.stallJoints.join(", ")} motion will stall half-way (a fault on cue, to show an unknown)`,
        );
      say(`  effects    ${shown(join(options.dataDir, "effects.jsonl"))} (the simulator's ground truth)`);
    }
    if (shutdown.signal.aborted) return 0;
    bridge = await Bridge.start({ config: options.config, transport, dataDir: options.dataDir, logger });
    for (const w of bridge.startupWarnings) io.stderr.write(`armbridge demo: WARNING: ${w}\n`);
    say(`  ledger     ${shown(join(options.dataDir, "ledger.sqlite"))}`);
    say(`  logs       ${shown(join(options.dataDir, "armbridge.log"))}`);
    http = await serveHttpOnPort(bridge, httpPort, { token: options.token, logger });
    const consoleUrl = `${http.url}/console#token=${options.token}`;
    say(`  API        ${http.url}/v1 (Authorization: Bearer ${options.token})`);
    say(`  console    ${consoleUrl}`);
    say();
    if (shutdown.signal.aborted) return 0;

    // The ER session (its own module, on a simulated arm of its own) goes first; an arm given on the
    // command line has no simulated camera, and a bus arm's config ships none (the bus demo is about the bus).
    if (options.bus)
      say(
        "ER session skipped: it runs on the simulated 6-axis arm and its overhead camera; `armbridge demo` without --bus shows it.\n",
      );
    else if (!options.transport) {
      const er = await runErSession({
        dataDir: join(options.dataDir, "er"),
        config: options.config,
        link: options.link,
        seed: options.seed,
        logger,
        say,
        shown,
        env: io.env,
        signal: shutdown.signal,
        baseUrl: options.baseUrl,
        token: options.token,
      });
      if (er.failed) exitCode = 1;
    }
    if (shutdown.signal.aborted) return exitCode;

    const narrator = new SessionNarrator({ write: say, consoleUrl });
    const activeBridge = bridge;
    unsubscribe = bridge.onEvent((e) => {
      if (e.type === "action_resolved") narrator.actionResolved(e.row);
    });
    const { model, what } = chooseModel(options, io.env);
    say(what);
    // The session is a client of the serve above, over its HTTP API, as `armbridge agent --bridge` is.
    remote = await RemoteBridge.connect({
      url: http.url,
      token: options.token,
      client: agentClient({ model: model.model }),
      logger,
    });
    say(
      `  attached   to ${remote.url} as ${remote.client.kind} ${remote.client.name} (session ${remote.client.session ?? "-"}): its calls, progress and outcomes are in the console above`,
    );
    say();
    try {
      const result = await runAgent({
        bridge: remote,
        model,
        instruction: options.instruction,
        transcriptPath: join(options.dataDir, "transcript.jsonl"),
        onProgress: narrator.onAgentEvent,
        signal: shutdown.signal,
      });
      for (const note of result.notes) say(`  note: ${note}`);
    } catch (error) {
      const e = asArmbridgeError(error);
      say(`The session failed: ${e.message} [${e.code}]`);
      exitCode = 1;
    }
    say();
    narrator.summary((actionId) => activeBridge.ledger.get(actionId)?.state === "unknown");
    if (options.exitAfterSession || shutdown.signal.aborted) return exitCode;

    say();
    say(`Serving. Open ${consoleUrl} to confirm or reject unknown actions. Press Ctrl-C to stop.`);
    await new Promise<void>((resolve) => {
      if (shutdown.signal.aborted) resolve();
      else shutdown.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return exitCode;
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge demo: ${e.message} [${e.code}]\n`);
    return 1;
  } finally {
    unsubscribe?.();
    await remote?.close();
    // Order matters: stop taking requests, then release the arm, then stop the arm.
    const failed =
      (what: string) =>
      (error: unknown): void => {
        closeFailed = true;
        logger.error({ err: String(error) }, `${what} close failed`);
      };
    await (http ?? httpPort)?.close().catch(failed("HTTP"));
    await bridge?.close().catch(failed("bridge"));
    stoppingSim = true;
    const simCode = await sim?.stop();
    if (sim) logger.info({ exit_code: simCode }, "firmware-sim stopped");
    for (const s of DEMO_STOP_SIGNALS) process.off(s, onSignal);
    io.stdout.off("error", onStdoutError);
    logger.flush();
    if (shutdown.signal.aborted)
      say(
        closeFailed
          ? `Stopped, but not everything closed cleanly (see ${join(options.dataDir, "armbridge.log")}).`
          : "Stopped cleanly.",
      );
  }
}

function chooseModel(options: DemoOptions, env: NodeJS.ProcessEnv): { model: ModelClient; what: string } {
  const key = env.GEMINI_API_KEY;
  if (options.model?.startsWith("replay:")) {
    const file = options.model.slice("replay:".length);
    return { model: ReplayModelClient.fromFile(file), what: `Scripted session ${file} (replay model).` };
  }
  if (key) {
    const model = new GeminiModelClient({ apiKey: key, model: options.model, baseUrl: options.baseUrl });
    return { model, what: `Gemini session with ${model.model}. Instruction: ${options.instruction}` };
  }
  return {
    model: ReplayModelClient.fromFile(options.session),
    what: `Scripted session ${relative(process.cwd(), options.session)} through the agent loop with the replay model (set GEMINI_API_KEY to drive it with Gemini).`,
  };
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

function parseDemoArgs(argv: readonly string[]): DemoOptions {
  const usage = (message: string): ArmbridgeError => new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
  const bridgeFlags = parseBridgeFlags(argv, { transport: "optional" });
  let values;
  try {
    values = parseArgs({
      args: bridgeFlags.rest,
      strict: true,
      allowPositionals: false,
      options: DEMO_FLAGS,
    }).values;
  } catch (error) {
    throw usage(`${(error as Error).message}; see armbridge demo --help`);
  }
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
