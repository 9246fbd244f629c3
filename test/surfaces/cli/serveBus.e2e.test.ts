import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../../../firmware-sim/effectsJudge.js";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "./processes.js";

// Real processes from dist/: `armbridge-sim --bus` and `armbridge serve --config <bus config>`.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping serve-on-a-bus end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "bus-e2e-token";

describe.skipIf(!built).each([
  ["feetech_sts", "so101.yaml", "elbow_flex"],
  ["dynamixel_2", "koch-follower.yaml", "elbow_flex"],
])("armbridge serve on a %s bus (%s, needs dist: npm run build)", (protocol, file, joint) => {
  let dir: string;
  let sim: ReadyProcess;
  let serve: ReadyProcess;
  let url: string;
  const config = join(ROOT, "config", file);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-bus-e2e-"));
    sim = await startReady(SIM, ["--bus", protocol, "--config", config, "--link", "tcp", "--port", "0", "--effects-log", join(dir, "effects.jsonl")]);
    serve = await startReady(CLI, ["serve", "--config", config, "--serial", String(sim.ready.link), "--http", "127.0.0.1:0", "--token", TOKEN, "--data", join(dir, "data")]);
    url = String(serve.ready.http);
  });

  afterAll(async () => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("selects the bus from the config: a move is done, and the sim saw one motion with no action id", async () => {
    const res = await fetch(`${url}/v1/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ calls: [{ id: "bus-1", name: "move_joints", args: { positions: { [joint]: 0.5 } } }], deadline_ms: 8000 }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { responses: { response: { output: { status: string } } }[] };
    expect(body.responses[0]!.response.output.status).toBe("done");
    const starts = readEffects(join(dir, "effects.jsonl")).filter((e) => e.event === "motion_start");
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ action_id: null, joints: [joint] });
  });

  it("shuts down cleanly on SIGINT with exit 0", async () => {
    expect(await interrupt(serve)).toBe(0);
  });
});
