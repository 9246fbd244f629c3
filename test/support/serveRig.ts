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
  readonly serve: ReadyProcess;
  /** serve's API, from its ready line. */
  readonly url: string;
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
  try {
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", ...options.simArgs, "--effects-log", effectsLog]);
    serve = await startReady(
      CLI,
      [
        "serve",
        "--serial",
        String(sim.ready.link),
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
  } catch (error) {
    await close();
    throw error;
  }
  const url = String(serve.ready.http);
  return {
    dir,
    effectsLog,
    sim,
    serve,
    url,
    env: () => ({ ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: options.token }),
    effects: () => readEffects(effectsLog),
    close,
  };
}
