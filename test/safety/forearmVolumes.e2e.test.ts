import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { motionsEnded, readEffects } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// Real processes from dist/: firmware-sim over TCP (wrist_2's next motion stalls half-way) and `armbridge serve`
// on the shipped sim arm config. The effects log is the ground truth of what moved.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(
    `skipping the forearm volumes end-to-end test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`,
  );

const TOKEN = "forearm-e2e";
let dir: string;
let sim: ReadyProcess;
let serve: ReadyProcess;
let url: string;

interface Result {
  status: string;
  error_code?: string;
  envelope?: { link: string; part: string; obstacle: { kind: string; name: string } };
}

async function call(name: string, args: unknown, id: string): Promise<Result> {
  const res = await fetch(`${url}/v1/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ calls: [{ id, name, args }], deadline_ms: 20_000 }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { responses: { response: { output?: Result; error?: Result } }[] };
  const response = json.responses[0]!.response;
  return (response.output ?? response.error)!;
}

const effectsPath = (): string => join(dir, "effects.jsonl");
const starts = (): { action_id: string | null; joints: string[] }[] =>
  readEffects(effectsPath()).filter((e) => e.event === "motion_start");

describe.skipIf(!built)(
  "the sim arm's forearm volumes through `armbridge serve` on firmware-sim (needs dist: npm run build)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-forearm-e2e-"));
      sim = await startReady(SIM, [
        "--link",
        "tcp",
        "--port",
        "0",
        "--effects-log",
        effectsPath(),
        "--stall-joint",
        "wrist_2",
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
        "--config",
        join(ROOT, "config", "sim-arm.yaml"),
      ]);
      url = String(serve.ready.http);
    });

    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("the forearm driven into the table is refused naming forearm_link and the floor; nothing moves", async () => {
      const r = await call("move_joints", { positions: { shoulder_lift: 0.9, elbow: 0, wrist_1: 1.5 } }, "into-table");
      expect(r).toMatchObject({
        status: "rejected",
        error_code: "ARMB_ERR_ENVELOPE_VIOLATION",
        envelope: { link: "forearm_link", part: "volume", obstacle: { kind: "floor", name: "floor_z" } },
      });
      expect(starts()).toHaveLength(0);
    });

    it("with a wrist_2 swing near home left unknown (in flight over its whole path), a pan beside it is admitted and the simulator runs it to its target", async () => {
      const swing = await call("move_joints", { positions: { wrist_2: -0.45 } }, "w2-swing");
      expect(swing.status).toBe("unknown");
      await motionsEnded(effectsPath(), 5000);
      expect(starts().filter((e) => e.joints.includes("wrist_2"))).toHaveLength(1);

      const pan = await call("move_joints", { positions: { shoulder_pan: 0.5 } }, "pan-beside");
      expect(pan.status).toBe("done");
      await motionsEnded(effectsPath(), 10_000);
      const effects = readEffects(effectsPath());
      const start = effects.find((e) => e.event === "motion_start" && e.joints.includes("shoulder_pan"));
      expect(start).toBeDefined();
      const end = effects.find((e) => e.event === "motion_end" && e.action_id === start!.action_id);
      expect(end?.outcome).toBe("reached");
      expect(start!.to!.shoulder_pan).toBeCloseTo(0.5, 3);
      // One motion each: nothing re-sent.
      expect(starts()).toHaveLength(2);
    });
  },
);
