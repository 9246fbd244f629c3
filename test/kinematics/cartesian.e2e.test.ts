import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { readEffects } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, runCli, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// Real processes from dist/: firmware-sim over TCP and `armbridge serve` with NO config,
// so the default simulated arm's URDF and envelope are what is exercised.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping the Cartesian end-to-end test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "kin-e2e";
const URDF = join(ROOT, "config", "urdf", "sim-arm.urdf");
const chain = new KinematicChain(parseUrdf(readFileSync(URDF, "utf8"), URDF), "base_link", "tool0", URDF);
const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];

let dir: string;
let sim: ReadyProcess;
let serve: ReadyProcess;
let url: string;

interface Output {
  status: string;
  error_code?: string;
  issues?: { message: string }[];
  message: string;
  output?: { pose: Record<string, number>; end_effector?: { position: { x: number; y: number; z: number } } };
}

async function call(name: string, args: unknown, id: string): Promise<Output> {
  const res = await fetch(`${url}/v1/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ calls: [{ id, name, args }], deadline_ms: 15_000 }),
  });
  expect(res.status).toBe(200);
  // A rejected call comes back under `error` (the model's own mistake), any other under `output`.
  const json = (await res.json()) as { responses: { response: { output?: Output; error?: Output } }[] };
  const response = json.responses[0]!.response;
  return (response.output ?? response.error)!;
}

const effectsPath = (): string => join(dir, "effects.jsonl");
const motionStarts = (): number => readEffects(effectsPath()).filter((e) => e.event === "motion_start").length;
const tipOf = (pose: Record<string, number>): [number, number, number] =>
  positionOf(chain.tip(JOINTS.map((j) => pose[j]!)));
const dist = (a: readonly number[], b: readonly number[]): number =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

describe.skipIf(!built)(
  "Cartesian moves through `armbridge serve` (no config) on firmware-sim (needs dist: npm run build)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-kin-e2e-"));
      sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--effects-log", effectsPath()]);
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
    });

    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("move_to_point reaches the point: FK of the joints the arm reports puts the tool within 2 mm of it", async () => {
      const target: [number, number, number] = [-0.55, -0.2, 0.25];
      const moved = await call("move_to_point", { x: target[0], y: target[1], z: target[2] }, "kin-1");
      expect(moved.status).toBe("done");
      const state = await call("get_arm_state", {}, "kin-state-1");
      expect(dist(tipOf(state.output!.pose), target)).toBeLessThan(0.002);
      const ee = state.output!.end_effector!.position;
      expect(dist([ee.x, ee.y, ee.z], target)).toBeLessThan(0.002);
      // The firmware's own record: one motion, to the joint targets IK chose.
      expect(motionStarts()).toBe(1);
    });

    it("a reachable point outside the envelope (below the floor) is rejected naming the link, and nothing reaches the arm", async () => {
      const before = motionStarts();
      const r = await call("move_to_point", { x: -0.5, y: -0.2, z: -0.37 }, "kin-2");
      expect(r).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
      expect(r.issues![0]!.message).toMatch(/^move_to_point: the motion would take \w+ to \(/);
      expect(motionStarts()).toBe(before);
    });

    it("a point beyond reach is rejected with the closest reachable point, and nothing reaches the arm", async () => {
      const before = motionStarts();
      const r = await call("move_to_point", { x: 2, y: 0, z: 0.5 }, "kin-3");
      expect(r).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TARGET_UNREACHABLE" });
      expect(r.issues![0]!.message).toMatch(
        /closest reachable point found is \(-?\d\.\d{3}, -?\d\.\d{3}, -?\d\.\d{3}\) m in base_link/,
      );
      expect(motionStarts()).toBe(before);
    });

    it("move_joints passes the same envelope: a joint move through the floor is rejected, nothing sent", async () => {
      const before = motionStarts();
      const r = await call("move_joints", { positions: { shoulder_lift: 1.6, elbow: 0 } }, "kin-4");
      expect(r).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
      expect(motionStarts()).toBe(before);
    });
  },
);

describe.skipIf(!built)(
  "a URDF the bridge cannot use stops `armbridge serve` before it talks to the arm (needs dist)",
  () => {
    it("exits 1 naming ARMB_ERR_URDF_INVALID and the file", async () => {
      const tmp = mkdtempSync(join(tmpdir(), "armbridge-bad-urdf-"));
      try {
        const yaml = readFileSync(join(ROOT, "config", "sim-arm.yaml"), "utf8").replace(
          "urdf: urdf/sim-arm.urdf",
          "urdf: missing.urdf",
        );
        writeFileSync(join(tmp, "arm.yaml"), yaml);
        // Port 0: the default port may be taken by another bridge on this machine, and serve binds first.
        const r = await runCli([
          "serve",
          "--serial",
          "tcp://127.0.0.1:9",
          "--http",
          "127.0.0.1:0",
          "--config",
          join(tmp, "arm.yaml"),
          "--token",
          "t",
          "--data",
          ":memory:",
        ]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain("ARMB_ERR_URDF_INVALID");
        expect(r.stderr).toContain(join(tmp, "missing.urdf"));
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  },
);
