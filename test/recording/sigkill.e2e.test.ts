import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McapStreamReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import { afterAll, describe, expect, it } from "vitest";
import { readEffects } from "../firmware-sim/readEffects.js";
import { readRecording } from "../../src/recording/readRecording.js";
import { recordingFiles } from "../../src/recording/RecordingFolder.js";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// `armbridge serve --record DIR` killed with SIGKILL mid-recording, as real
// processes from dist/ (`npm test` builds first): the file it leaves has no
// summary, yet every chunk written before the kill reads back, with the
// motion the simulator's effects log shows.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping the SIGKILL recording test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "recording-sigkill-e2e-token";
let dir: string | undefined;
let sim: ReadyProcess | undefined;
let serve: ReadyProcess | undefined;

async function until<T>(probe: () => T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(async () => {
  if (serve) await interrupt(serve);
  if (sim) await interrupt(sim);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!built)("a recording when serve is killed (needs dist: npm run build)", () => {
  it("stays readable up to its last whole chunk, with the motion that ran", async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-rec-kill-"));
    const effects = join(dir, "effects.jsonl");
    const rec = join(dir, "rec");
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--seed", "5", "--effects-log", effects]);
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
      "--record",
      rec,
    ]);
    const env = { ARMBRIDGE_URL: String(serve.ready.http), ARMBRIDGE_TOKEN: TOKEN };
    const call = await runCli(["call", "move_joints", "--args", '{"positions":{"elbow":0.4}}', "--id", "k1"], env);
    expect(call.code, call.stderr).toBe(0);
    const [file] = recordingFiles(rec);
    const sizeAtAnswer = statSync(String(file)).size;
    // A chunk finished after the answer holds the answer's records: then kill.
    await until(() => (statSync(String(file)).size > sizeAtAnswer ? true : undefined), 60_000);
    serve.child.kill("SIGKILL");
    await serve.exited;
    serve = undefined;

    const recording = readRecording(String(file));
    expect(recording.complete).toBe(false);
    const moved = readEffects(effects).find((e) => e.event === "motion_start");
    expect(moved?.joints).toEqual(["elbow"]);
    const actions = recording.messages.filter((m) => m.topic === "/armbridge/actions").map((m) => m.data);
    expect(actions.filter((a) => a.action_id === moved?.action_id).map((a) => a.kind)).toEqual([
      "intent",
      "start",
      "settlement",
    ]);
    const elbow = recording.messages
      .filter((m) => m.topic === "/joint_states")
      .map((m) => (m.data.joints as { name: string; position: number }[]).find((j) => j.name === "elbow")?.position);
    expect(elbow.at(-1)).toBeCloseTo(0.4, 2);

    // @mcap/core's own stream reader, with @mcap/support's lz4: the same messages, then the tear.
    const reader = new McapStreamReader({ decompressHandlers: await loadDecompressHandlers() });
    reader.append(readFileSync(String(file)));
    let messages = 0;
    for (;;) {
      let r;
      try {
        r = reader.nextRecord();
      } catch {
        break;
      }
      if (!r) break;
      if (r.type === "Message") messages++;
    }
    expect(messages).toBe(recording.messages.length);
  }, 120_000);
});
