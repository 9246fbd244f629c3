import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSimulator } from "../../../firmware-sim/spawnSimulator.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { packageRoot } from "../../config/packageRoot.js";
import { asArmbridgeError } from "../../errors.js";
import { endEffectorOf } from "../../kinematics/endEffectorOf.js";
import type { Logger } from "../../observability/logger.js";
import { ER_DEMO_INSTRUCTION, ER_SYSTEM_INSTRUCTION } from "../gemini/erSystemInstruction.js";
import { DEFAULT_GEMINI_MODEL, GeminiModelClient } from "../gemini/GeminiModelClient.js";
import type { ModelClient } from "../gemini/ModelClient.js";
import { ReplayModelClient } from "../gemini/ReplayModelClient.js";
import { runAgent } from "../gemini/runAgent.js";
import { agentClient } from "../gemini/agentClient.js";
import { RemoteBridge } from "../attach/RemoteBridge.js";
import { ProcessScope } from "../runtime/ProcessScope.js";
import { startServing, type Serving } from "../runtime/startServing.js";
import { ErNarrator, type ImagePointMove } from "./ErNarrator.js";

/** The scripted ER session `npm start` replays without GEMINI_API_KEY. */
export const ER_SESSION_FILE = join(packageRoot(), "config", "er-session.jsonl");

/** The tools an ER session needs; an arm config without a calibrated camera has no move_to_image_point. */
const ER_TOOLS = ["get_camera_image", "move_to_image_point", "set_gripper"] as const;

export interface ErSessionOptions {
  /** This session's own folder (the demo's `<data>/er`): ledger, effects log, logs, frames, transcript. */
  readonly dataDir: string;
  /** The arm config file (default the simulated arm, which ships the calibrated `overhead` camera). */
  readonly config: string | undefined;
  readonly link: "pty" | "tcp";
  readonly seed: number;
  readonly logger: Logger;
  readonly say: (line?: string) => void;
  /** A path as the user can type it from here. */
  readonly shown: (path: string) => string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  /** Another Gemini endpoint (the demo's --base-url). */
  readonly baseUrl?: string | undefined;
  /** The replay file (default config/er-session.jsonl). */
  readonly session?: string | undefined;
  /** The bearer token of this session's own console (the demo's). */
  readonly token: string;
}

export interface ErSessionOutcome {
  readonly ran: boolean;
  readonly failed: boolean;
}

/**
 * The Gemini Robotics-ER part of `npm start`: the model looks through the
 * overhead camera, points at a block in the picture ([y, x], 0–1000), the arm
 * moves above it through move_to_image_point, the gripper closes. Offline the
 * replayed model reads the point out of the delivered picture itself
 * (config/er-session.jsonl, `locate`); with GEMINI_API_KEY the same session
 * runs with the real ER model (DEFAULT_GEMINI_MODEL) on the simulated camera.
 * It runs on a simulated arm of its own (firmware-sim + a serve of its own,
 * bridge and console, under `dataDir`), so the scripted session after it
 * keeps its arm's effects log; like every model, it is a client of that
 * serve over its HTTP API, and its console URL is printed.
 * The frames it was given are saved under `dataDir/frames/` and the narrative
 * prints their paths and the path of each point: frame → table → arm.
 */
export async function runErSession(options: ErSessionOptions): Promise<ErSessionOutcome> {
  const { say } = options;
  mkdirSync(options.dataDir, { recursive: true });
  const scope = new ProcessScope();
  try {
    const armed = await startErArm(options, scope);
    if (!armed) return { ran: false, failed: false };
    const missing = ER_TOOLS.filter((t) => armed.serving.bridge.registry.get(t) === undefined);
    if (missing.length > 0) {
      say(
        `ER session skipped: this arm has no ${missing.join(", ")} (a calibrated camera in the config's cameras: gives them).`,
      );
      say();
      return { ran: false, failed: false };
    }
    return { ran: true, failed: await runErModel(options, armed, scope) };
  } catch (error) {
    const e = asArmbridgeError(error);
    say(`The ER session could not start: ${e.message} [${e.code}]`);
    say();
    return { ran: false, failed: true };
  } finally {
    await scope.close((what, error) =>
      options.logger.error({ err: String(error) }, `ER ${what === "HTTP" ? "console" : what} close failed`),
    );
  }
}

/** The ER session's own arm: firmware-sim, a bridge and a console on it. */
interface ErArm {
  readonly serving: Serving;
  readonly simPid: number;
  readonly effects: string;
}

/**
 * An arm of its own: the scripted session that follows judges its arm's effects log, and its
 * fault on cue (the next wrist_2 motion stalls) would otherwise catch this session's reach.
 */
async function startErArm(options: ErSessionOptions, scope: ProcessScope): Promise<ErArm | undefined> {
  const effects = join(options.dataDir, "effects.jsonl");
  let simPid = 0;
  const logger = options.logger.child({ component: "er_session" });
  const serving = await startServing({
    scope,
    http: { host: "127.0.0.1", port: 0, token: options.token, logger },
    bridge: { config: options.config, dataDir: options.dataDir, logger },
    sim: async () => {
      const sim = await spawnSimulator({
        link: options.link,
        seed: options.seed,
        effectsLog: effects,
        logFile: join(options.dataDir, "firmware-sim.log"),
        flags: options.config === undefined ? [] : ["--config", options.config],
      });
      simPid = sim.pid;
      return { transport: { kind: "serial", link: sim.link }, stop: async () => void (await sim.stop()) };
    },
    signal: options.signal,
  });
  return serving ? { serving, simPid, effects } : undefined;
}

/** The model on the ER arm, attached to its console, narrated; whether it failed. */
async function runErModel(options: ErSessionOptions, armed: ErArm, scope: ProcessScope): Promise<boolean> {
  const { say } = options;
  const { bridge, http } = armed.serving;
  const { model, what } = chooseErModel(options);
  const remote = await RemoteBridge.connect({
    url: http.url,
    token: options.token,
    client: agentClient({ model: model.model, name: "er-session" }),
    logger: options.logger.child({ component: "er_session" }),
  });
  scope.add("remote", () => remote.close());
  say(what);
  say(
    `  ER arm     a simulated arm of its own (sim pid ${armed.simPid}); ground truth ${options.shown(armed.effects)}, ledger ${options.shown(join(options.dataDir, "ledger.sqlite"))}`,
  );
  say(
    `  ER console ${http.url}/console#token=${encodeURIComponent(options.token)} (this arm's own; the session is attached to it as ${remote.client.kind} ${remote.client.name})`,
  );
  say();
  const narrator = new ErNarrator({
    framesDir: join(options.dataDir, "frames"),
    write: (l) => say(l),
    shown: options.shown,
  });
  let failed = false;
  try {
    const result = await runAgent({
      bridge: remote,
      model,
      instruction: ER_DEMO_INSTRUCTION,
      systemInstruction: ER_SYSTEM_INSTRUCTION,
      transcriptPath: join(options.dataDir, "transcript.jsonl"),
      onProgress: narrator.onAgentEvent,
      signal: options.signal,
      maxTurns: 12,
    });
    for (const note of result.notes) say(`  note: ${note}`);
  } catch (error) {
    const e = asArmbridgeError(error);
    say(`The ER session failed: ${e.message} [${e.code}]`);
    failed = true;
  }
  say();
  summarise(options, bridge.config, narrator);
  say();
  return failed;
}

function chooseErModel(options: ErSessionOptions): { model: ModelClient; what: string } {
  const key = options.env.GEMINI_API_KEY;
  if (key) {
    const model = new GeminiModelClient({ apiKey: key, model: DEFAULT_GEMINI_MODEL, baseUrl: options.baseUrl });
    return {
      model,
      what: `Gemini Robotics-ER session with ${model.model} on the simulated overhead camera. Instruction: ${ER_DEMO_INSTRUCTION}`,
    };
  }
  const file = options.session ?? ER_SESSION_FILE;
  return {
    model: ReplayModelClient.fromFile(file),
    what: `Gemini Robotics-ER style session ${relative(process.cwd(), file)} with the replay model: it reads the block's position out of the picture it is given (set GEMINI_API_KEY to run ${DEFAULT_GEMINI_MODEL}).`,
  };
}

/** What the session showed, each line from the results and the arm's reported joints. */
function summarise(options: ErSessionOptions, config: ArmConfig, narrator: ErNarrator): void {
  const { say } = options;
  const box = (seen: boolean): string => (seen ? "[x]" : "[ ]");
  say("What the ER session showed:");
  say(
    `  ${box(narrator.frames.length > 0)} the model was given ${narrator.frames.length} picture(s); saved: ${narrator.frames.map((f) => options.shown(f.path)).join(", ") || "none"}`,
  );
  const reach = narrator.moves.find((m) => m.result.status === "done");
  say(
    `  ${box(reach !== undefined)} it pointed at a block and the arm moved above it${reach ? `: ${describeReach(options, config, reach)}` : " (not seen)"}`,
  );
  const grip = [...narrator.results.entries()].find(
    ([, r]) => r.tool === "set_gripper" && r.result.status === "done" && (r.result.pose?.gripper ?? 1) < 0.05,
  );
  say(
    `  ${box(grip !== undefined)} the gripper closed${grip ? `: ${grip[0]} ${"action_id" in grip[1].result ? (grip[1].result.action_id ?? "") : ""} done` : " (not seen)"}`,
  );
}

function describeReach(options: ErSessionOptions, config: ArmConfig, m: ImagePointMove): string {
  const action = "action_id" in m.result ? m.result.action_id : undefined;
  const pose = "pose" in m.result ? m.result.pose : undefined;
  const tip = (
    endEffectorOf(config, pose).end_effector as { position?: { x: number; y: number; z: number } } | null | undefined
  )?.position;
  const words = [
    `${m.callId} read [${m.point.join(", ")}] from ${m.frame ? options.shown(m.frame.path) : "a picture"}`,
    m.tablePoint ? `mapped to the table at (${m.tablePoint.x.toFixed(3)}, ${m.tablePoint.y.toFixed(3)}) m` : "",
    `${action ?? ""} ${m.result.status}`.trim(),
  ];
  if (tip && m.target) {
    const off = Math.hypot(tip.x - m.target.x, tip.y - m.target.y) * 1000;
    words.push(
      `the arm's reported joints put the tool tip at (${tip.x.toFixed(3)}, ${tip.y.toFixed(3)}, ${tip.z.toFixed(3)}) m, ${off.toFixed(1)} mm from the target across the table`,
    );
  }
  return words.filter((w) => w !== "").join("; ");
}
