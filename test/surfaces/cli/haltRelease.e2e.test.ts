import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../../firmware-sim/readEffects.js";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "./processes.js";

// `armbridge halt` and `armbridge release --operator NAME` as a person at a
// terminal uses them, against real processes: firmware-sim over TCP (its
// effects log is the ground truth of what moved) and `armbridge serve`, both
// from dist/ (`npm test` builds first).
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping halt/release end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "halt-release-e2e-token";
let dir: string;
let sim: ReadyProcess;
let serve: ReadyProcess;
let url: string;
let env: NodeJS.ProcessEnv;

const effectsPath = (): string => join(dir, "effects.jsonl");
const starts = (): string[] =>
  readEffects(effectsPath())
    .filter((e) => e.event === "motion_start")
    .map((e) => String(e.action_id));

interface CallAnswer {
  readonly response: { readonly output?: Record<string, unknown>; readonly error?: Record<string, unknown> };
}

async function state(): Promise<{ halted: boolean }> {
  return (await (await fetch(`${url}/v1/state`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
    halted: boolean;
  };
}

async function until<T>(probe: () => T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!built)("armbridge halt / release against serve and firmware-sim (needs dist: npm run build)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-halt-e2e-"));
    // Slow motions, so a halt lands while one is under way.
    sim = await startReady(SIM, [
      "--link",
      "tcp",
      "--port",
      "0",
      "--seed",
      "3",
      "--motion-time",
      "fixed:4000",
      "--effects-log",
      effectsPath(),
    ]);
    serve = await startReady(CLI, [
      "serve",
      "--serial",
      String(sim.ready.link),
      "--http",
      "127.0.0.1:0",
      "--token",
      TOKEN,
      "--data",
      join(dir, "data"),
    ]);
    url = String(serve.ready.http);
    env = { ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: TOKEN };
  });

  afterAll(async () => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("halt cuts a motion short and latches; every motion is refused ARMB_ERR_HALTED and nothing moves until `release --operator`; then a motion runs once", async () => {
    // A motion under way when the operator halts.
    const running = runCli(
      ["call", "move_joints", "--args", '{"positions":{"shoulder_pan":0.6}}', "--id", "hr-running"],
      env,
    );
    const runningId = await until(() => starts()[0], 10_000);

    const halt = await runCli(["halt", "--operator", "Ada", "--note", "hand in the cell"], env);
    expect(halt.code, halt.stderr).toBe(0);
    const halted = JSON.parse(halt.stdout) as {
      halted: boolean;
      halt: { halt_id: string; source: string; operator: string };
    };
    expect(halted).toMatchObject({ halted: true, halt: { source: "cli", operator: "Ada" } });
    expect((await state()).halted).toBe(true);

    // The motion it cut short settles stopped (by the operator, at the pose it stopped at), and the arm says so too.
    const cut = JSON.parse((await running).stdout) as CallAnswer;
    expect(cut.response.output).toMatchObject({ status: "stopped", settled_by: "operator" });
    const ended = await until(
      () => readEffects(effectsPath()).find((e) => e.event === "motion_end" && e.action_id === runningId),
      5000,
    );
    expect(ended.outcome).toBe("stopped");
    const startsAtHalt = starts().length;

    // Latched: refused with the code, by the CLI and over HTTP alike.
    const refused = await runCli(
      ["call", "move_joints", "--args", '{"positions":{"elbow":0.3}}', "--id", "hr-refused"],
      env,
    );
    expect(refused.code).toBe(0);
    expect((JSON.parse(refused.stdout) as CallAnswer).response.output).toMatchObject({
      status: "blocked",
      error_code: "ARMB_ERR_HALTED",
    });
    const pose = await runCli(
      ["call", "move_to_named_pose", "--args", '{"pose":"ready"}', "--id", "hr-refused-pose"],
      env,
    );
    expect((JSON.parse(pose.stdout) as CallAnswer).response.output).toMatchObject({
      status: "blocked",
      error_code: "ARMB_ERR_HALTED",
    });

    // A release needs a name, and a name only.
    const anonymous = await runCli(["release"], env);
    expect(anonymous.code).toBe(2);
    expect((await state()).halted).toBe(true);
    // Nothing moved while latched (motions that are refused never reach the arm).
    await new Promise((r) => setTimeout(r, 300));
    expect(starts()).toHaveLength(startsAtHalt);

    const release = await runCli(["release", "--operator", "Ada", "--note", "cell clear"], env);
    expect(release.code, release.stderr).toBe(0);
    const released = JSON.parse(release.stdout) as { released: { halt_id: string; released_by: string }[] };
    expect(released.released).toEqual([expect.objectContaining({ halt_id: halted.halt.halt_id, released_by: "Ada" })]);
    expect((await state()).halted).toBe(false);
    expect(starts()).toHaveLength(startsAtHalt);

    // Released: the next motion runs, once.
    const after = await runCli(
      ["call", "move_joints", "--args", '{"positions":{"elbow":0.3}}', "--id", "hr-after"],
      env,
    );
    const output = (JSON.parse(after.stdout) as CallAnswer).response.output!;
    expect(output).toMatchObject({ status: "done" });
    expect(starts().slice(startsAtHalt)).toEqual([output.action_id]);
    expect(
      readEffects(effectsPath()).find((e) => e.event === "motion_end" && e.action_id === output.action_id)?.outcome,
    ).toBe("reached");

    // Nothing left to release: a coded error, exit 1.
    const twice = await runCli(["release", "--operator", "Ada"], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("ARMB_ERR_NOT_HALTED");
  }, 60_000);

  it("`release --help` prints its usage in the one format", async () => {
    const help = await runCli(["release", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: armbridge release --operator NAME/);
  });
});
