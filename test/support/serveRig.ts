import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../src/config/loadConfig.js";
import { readEffects } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

/** The default arm's config as YAML keys, its URDF made absolute so the copy loads from a temporary folder. */
export type RawConfig = Record<string, Record<string, unknown>>;

export interface ServeRigOptions {
  /** Prefix of the temporary folder (config, effects log, ledger). */
  readonly name: string;
  /** The simulator's flags besides its link and effects log (seed, motion time, faults on cue). */
  readonly simArgs: readonly string[];
  /** The config serve runs, from the default arm's. */
  readonly config: (raw: RawConfig) => Record<string, unknown>;
  readonly token: string;
  /** Given to serve when set; otherwise serve makes one (the console link carries it). */
  readonly operatorToken?: string;
}

/** firmware-sim over TCP and `armbridge serve` on it, real processes from dist/. */
export interface ServeRig {
  readonly dir: string;
  /** The simulator's ground truth: one line per physical event. */
  readonly effectsLog: string;
  readonly sim: ReadyProcess;
  /** The serve running now (a new one after `startServe`). */
  readonly serve: ReadyProcess;
  /** The running serve's API, from its ready line. */
  readonly url: string;
  /** Kills serve (SIGKILL: a crash, nothing closed cleanly) and waits for it to be gone. */
  killServe(): Promise<void>;
  /** Starts serve again on the same simulator, config and ledger. */
  startServe(): Promise<void>;
  /** The environment a CLI command needs to reach serve with the API token. */
  env(): NodeJS.ProcessEnv;
  effects(): ReturnType<typeof readEffects>;
  /** Interrupts serve, then the simulator, and removes the folder. */
  close(): Promise<void>;
}

export async function startServeRig(options: ServeRigOptions): Promise<ServeRig> {
  const dir = mkdtempSync(join(tmpdir(), options.name));
  const effectsLog = join(dir, "effects.jsonl");
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as RawConfig;
  raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
  const configPath = join(dir, "arm.yaml");
  writeFileSync(configPath, stringify(options.config(raw)));
  let sim: ReadyProcess | undefined;
  let serve: ReadyProcess | undefined;
  const close = async (): Promise<void> => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    rmSync(dir, { recursive: true, force: true });
  };
  const startServe = async (link: string): Promise<ReadyProcess> =>
    startReady(
      CLI,
      [
        "serve",
        "--serial",
        link,
        "--config",
        configPath,
        "--http",
        "127.0.0.1:0",
        "--token",
        options.token,
        ...(options.operatorToken === undefined ? [] : ["--operator-token", options.operatorToken]),
        "--data",
        join(dir, "data"),
      ],
      { XDG_STATE_HOME: join(dir, "xdg") },
    );
  try {
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", ...options.simArgs, "--effects-log", effectsLog]);
    serve = await startServe(String(sim.ready.link));
  } catch (error) {
    await close();
    throw error;
  }
  const link = String(sim.ready.link);
  const running = (): ReadyProcess => {
    if (serve === undefined) throw new Error("serve is not running (killServe without startServe)");
    return serve;
  };
  return {
    dir,
    effectsLog,
    sim,
    get serve() {
      return running();
    },
    get url() {
      return String(running().ready.http);
    },
    env: () => ({ ARMBRIDGE_URL: String(running().ready.http), ARMBRIDGE_TOKEN: options.token }),
    effects: () => readEffects(effectsLog),
    killServe: async () => {
      const killed = running();
      serve = undefined;
      killed.child.kill("SIGKILL");
      await killed.exited;
    },
    startServe: async () => {
      serve = await startServe(link);
    },
    close,
  };
}
