import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trapezoid } from "../../firmware-sim/Trajectory.js";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { readEffects, motionsEnded } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// Real processes from dist/: firmware-sim over TCP and `armbridge serve` on the default simulated arm with a
// keep-out zone, ISO 10218's 250 mm/s reduced speed as its tool-speed limit and 3 motions a minute. The effects
// log is the ground truth. The tests run in order: the refusals take no token, the fast pan takes one.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping the envelope end-to-end test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "envelope-e2e";
const URDF = join(ROOT, "config", "urdf", "sim-arm.urdf");
const chain = new KinematicChain(parseUrdf(readFileSync(URDF, "utf8"), URDF), "base_link", "tool0", URDF);
const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];
const MAX_ACCELERATION: Record<string, number> = {
  shoulder_pan: 6,
  shoulder_lift: 6,
  elbow: 6,
  wrist_1: 8,
  wrist_2: 8,
  wrist_3: 8,
};

let dir: string;
let sim: ReadyProcess;
let serve: ReadyProcess;
let url: string;

interface Result {
  status: string;
  action_id?: string;
  retry_after_ms?: number;
  error_code?: string;
  issues?: { message: string }[];
  envelope?: {
    link: string;
    obstacle: { kind: string; name: string };
    at: number;
    clearance_m: number;
    point: number[];
    volume?: unknown;
    other_volume?: unknown;
  };
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

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const effectsPath = (): string => join(dir, "effects.jsonl");
const motionStarts = (): number => readEffects(effectsPath()).filter((e) => e.event === "motion_start").length;

describe.skipIf(!built)(
  "the envelope with bodies through `armbridge serve` on firmware-sim (needs dist: npm run build)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-envelope-e2e-"));
      // The shipped sim arm, with a monitor on the table beside it and the tool-speed limit.
      const yaml = readFileSync(join(ROOT, "config", "sim-arm.yaml"), "utf8")
        .replace("urdf: urdf/sim-arm.urdf", `urdf: ${URDF}`)
        .replace(
          "  max_step_m: 1.0\n",
          "  max_step_m: 1.0\n  keep_out:\n    - { name: monitor, min: [-0.82, 0.06, -0.4], max: [-0.66, 0.22, 0.18] }\n",
        )
        .replace("  min_speed: 0.05\n", "  min_speed: 0.05\n  max_tool_speed_mps: 0.25\n  motions_per_minute: 3\n");
      writeFileSync(join(dir, "arm.yaml"), yaml);
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
        "--config",
        join(dir, "arm.yaml"),
      ]);
      url = String(serve.ready.http);
    });

    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("GET /v1/arm describes the envelope a 3D view draws: keep-out zones, link volumes, unchecked pairs, limits", async () => {
      const arm = await get<{
        envelope: {
          frame: string;
          keep_out: { name: string }[];
          link_volumes: { link: string }[];
          unchecked_pairs: { links: string[]; why: string }[];
          limits: { max_tool_speed_mps: number };
        };
      }>("/v1/arm");
      expect(arm.envelope.frame).toBe("base_link");
      expect(arm.envelope.keep_out.map((z) => z.name)).toEqual(["monitor"]);
      expect(arm.envelope.link_volumes.map((v) => v.link)).toContain("forearm_link");
      expect(arm.envelope.unchecked_pairs).toContainEqual({
        links: ["left_finger_link", "right_finger_link"],
        why: "allowed_contacts",
      });
      expect(arm.envelope.limits.max_tool_speed_mps).toBe(0.25);
    });

    it("a motion through the keep-out zone is refused naming the link, the zone, where and the clearance; the effects log shows nothing moved; /v1/state keeps the contact", async () => {
      await motionsEnded(effectsPath(), 5000);
      const before = motionStarts();
      // Pan from home: the forearm and wrist sweep through the monitor on their way.
      const r = await call("move_joints", { positions: { shoulder_pan: -0.9 } }, "through-monitor");
      expect(r).toMatchObject({
        status: "rejected",
        error_code: "ARMB_ERR_ENVELOPE_VIOLATION",
        envelope: { obstacle: { kind: "keep_out", name: "monitor" } },
      });
      expect(r.envelope!.at).toBeGreaterThan(0);
      expect(r.envelope!.clearance_m).toBeLessThan(0.001);
      expect(r.issues![0]!.message).toContain("keep_out zone monitor");
      expect(motionStarts()).toBe(before);
      const state = await get<{
        envelope: {
          last_refusal: { call_id: string; link: string; obstacle: { name: string }; volume?: unknown } | null;
          volumes: { link: string }[] | null;
        };
      }>("/v1/state");
      expect(state.envelope.last_refusal).toMatchObject({
        call_id: "through-monitor",
        link: r.envelope!.link,
        obstacle: { name: "monitor" },
      });
      expect(state.envelope.last_refusal!.volume).toBeDefined();
      expect(state.envelope.volumes!.map((v) => v.link)).toContain("wrist_3_link");
    });

    it("folding the wrist into the upper arm is refused as a self-collision; nothing moves", async () => {
      const before = motionStarts();
      const r = await call("move_joints", { positions: { elbow: 2.59, wrist_1: 0.68, wrist_2: -1.31 } }, "fold");
      expect(r).toMatchObject({
        status: "rejected",
        error_code: "ARMB_ERR_SELF_COLLISION",
        envelope: { link: "wrist_2_link", obstacle: { kind: "link", name: "upper_arm_link" } },
      });
      expect(r.envelope!.other_volume).toBeDefined();
      expect(motionStarts()).toBe(before);
    });

    it("a fast motion is slowed so the tool stays under 0.25 m/s: by the simulator's own timing of what it ran, it did", async () => {
      await motionsEnded(effectsPath(), 5000);
      const before = readEffects(effectsPath()).length;
      // The joints the motion does not move stay where the arm reports them.
      const { pose } = await get<{ pose: Record<string, number> }>("/v1/state");
      const r = await call("move_joints", { positions: { shoulder_pan: 0.8 }, speed: 1 }, "fast-pan");
      expect(r.status).toBe("done");
      await motionsEnded(effectsPath(), 10_000);
      const lines = readEffects(effectsPath()).slice(before);
      const start = lines.find((e) => e.event === "motion_start")!;
      const end = lines.find((e) => e.event === "motion_end" && e.action_id === start.action_id)!;
      expect(end.outcome).toBe("reached");
      // Replay the motion as firmware-sim ran it: each axis on its trapezoid over the logged duration.
      const durationMs = end.t - start.t;
      const from = start.from!,
        to = start.to!;
      const traj = new Map(
        Object.keys(to).map((j) => [j, trapezoid(from[j]!, to[j]!, 0, durationMs, MAX_ACCELERATION[j]!)]),
      );
      const at = (ms: number): number[] => JOINTS.map((j) => traj.get(j)?.positionAt(ms) ?? pose[j]!);
      let peak = 0;
      const n = 2000;
      let prev = chain.tip(at(0));
      for (let i = 1; i <= n; i++) {
        const tip = chain.tip(at((i * durationMs) / n));
        peak = Math.max(
          peak,
          (Math.hypot(tip[12]! - prev[12]!, tip[13]! - prev[13]!, tip[14]! - prev[14]!) * n) / (durationMs / 1000),
        );
        prev = tip;
      }
      // The log's timestamps add a few ms of scheduling to the duration, which only makes the replay slower.
      expect(peak).toBeLessThanOrEqual(0.25);
      // At speed 1 the same pan would have taken 0.73 s (2 rad/s, 6 rad/s²), the tool over 1.5 m/s.
      expect(durationMs).toBeGreaterThan(2000);
    });

    it("limits.motions_per_minute: past the bucket a motion is refused with the time to wait, and the effects log has exactly the motions that were let through", async () => {
      await motionsEnded(effectsPath(), 10_000);
      const before = readEffects(effectsPath()).length;
      // 3 a minute: at most 3 tokens, one back every 20 s. The fast pan took one; however slow this machine,
      // eight short moves in a row outrun the refill.
      const done: string[] = [];
      let refused: Result | undefined;
      let refusedId = "";
      for (let i = 0; i < 8 && !refused; i++) {
        const id = `rate-${i}`;
        const r = await call("move_joints", { positions: { wrist_3: i % 2 === 0 ? 0.05 : 0 } }, id);
        if (r.status === "done") done.push(r.action_id!);
        else [refused, refusedId] = [r, id];
      }
      expect(refused).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_MOTION_RATE_LIMITED" });
      expect(refused!.retry_after_ms).toBeGreaterThan(0);
      expect(refused!.retry_after_ms).toBeLessThanOrEqual(20_000);
      expect(refused!.issues![0]!.message).toContain("limits.motions_per_minute");
      expect(done.length).toBeGreaterThanOrEqual(1);
      await motionsEnded(effectsPath(), 10_000);
      const starts = readEffects(effectsPath())
        .slice(before)
        .filter((e) => e.event === "motion_start");
      expect(starts.map((e) => e.action_id)).toEqual(done);
      expect(JSON.stringify(starts)).not.toContain(refusedId);
      const state = await get<{ envelope: { motion_rate: { per_minute: number; tokens: number } | null } }>(
        "/v1/state",
      );
      expect(state.envelope.motion_rate!.per_minute).toBe(3);
      expect(state.envelope.motion_rate!.tokens).toBeLessThan(1);
    });
  },
);
