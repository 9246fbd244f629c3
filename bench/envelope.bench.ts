/**
 * npm run bench:envelope — the safety envelope's cost per motion, with link
 * volumes and self-collision, on the shipped arms.
 *
 * Move sets — bench:ik's generator (one mulberry32(7) stream, in this order):
 * - "full range": random joint moves across the limits, from and to random
 *   joint vectors (2,000 moves after 100 of warm-up) — most leave the
 *   envelope somewhere and stop at the first violation;
 * - "±0.4 rad, 1 in flight": from a random valid pose (inside the envelope),
 *   motion A on two joints in flight, B checked on two others, each joint
 *   ±0.4 rad (500 after 50 of warm-up);
 * - "±0.4 rad, 3 in flight": A, B, C in flight on one joint each, D checked
 *   on the rest (500 after 50).
 * Each set runs twice per arm: with the arm's link volumes (the shipped
 * config) and with link frames only (every link's volumes replaced by none),
 * the check as it was before volumes.
 *
 * Per motion: wall time (p50 / p99 / max), FK evaluations and self-collision
 * pair evaluations (p50 / p99, accepted motions). Prints figures; asserts
 * nothing (machines are noisy: compare within one run).
 */
import { join } from "node:path";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { packageRoot } from "../src/config/packageRoot.js";
import { armKinematicsOf, type ArmKinematics } from "../src/kinematics/armKinematics.js";
import { mulberry32 } from "../src/random/mulberry32.js";
import { checkMotionEnvelope } from "../src/safety/checkMotionEnvelope.js";
import { EnvelopeModel } from "../src/safety/EnvelopeModel.js";
import type { InFlightMotion } from "../src/safety/InFlightMotions.js";

const ARMS = [
  { name: "sim arm (UR5e-sized, 6 axes)", config: "sim-arm.yaml" },
  { name: "SO-101 (5 axes)", config: "so101.yaml" },
  { name: "Koch v1.1 (5 axes)", config: "koch-follower.yaml" },
];
const FULL = Number(process.env.ENVELOPE_BENCH_MOVES ?? 2000);
const NEAR = Number(process.env.ENVELOPE_BENCH_NEAR ?? 500);

/** The same config with every link's volumes replaced by none: link frames only. */
function framesOnly(config: ArmConfig, kin: ArmKinematics): ArmConfig {
  const links = new Set([...kin.bodies.linkVolumes.map((v) => v.link), ...Object.keys(config.linkVolumes)]);
  return { ...config, linkVolumes: Object.fromEntries([...links].map((l) => [l, []])) };
}

interface Figures {
  readonly times: number[];
  readonly cpu: number[];
  readonly fk: number[];
  readonly pairs: number[];
  accepted: number;
}

const figures = (): Figures => ({ times: [], cpu: [], fk: [], pairs: [], accepted: 0 });

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

function timed(f: Figures, record: boolean, run: () => ReturnType<typeof checkMotionEnvelope>): void {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const verdict = run();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const used = process.cpuUsage(c0);
  if (!record) return;
  f.times.push(ms);
  // CPU time of this process: what the check costs, whatever else the machine is doing.
  f.cpu.push((used.user + used.system) / 1000);
  if (verdict.ok) {
    f.accepted++;
    f.fk.push(verdict.samples);
    f.pairs.push(verdict.pairChecks);
  }
}

function report(label: string, f: Figures): void {
  const sorted = (a: readonly number[]): number[] => [...a].sort((x, y) => x - y);
  const t = sorted(f.times),
    cpu = sorted(f.cpu),
    fk = sorted(f.fk),
    pairs = sorted(f.pairs);
  const n = (v: number, w: number, d = 3): string => v.toFixed(d).padStart(w);
  console.log(
    `  ${label.padEnd(34)} ${n(quantile(t, 0.5), 7)} ${n(quantile(t, 0.99), 8)} ${n(t.at(-1) ?? NaN, 8, 2)} ${n(quantile(cpu, 0.99), 8)}   ${String(f.accepted).padStart(5)}/${String(f.times.length).padEnd(5)} ${String(quantile(fk, 0.5)).padStart(6)} ${String(quantile(fk, 0.99)).padStart(7)} ${String(quantile(pairs, 0.5)).padStart(7)} ${String(quantile(pairs, 0.99)).padStart(8)}`,
  );
}

const root = packageRoot();
console.log(
  "Envelope check per motion (ms wall), FK and self-collision pair evaluations per accepted motion (p50 / p99)",
);
for (const arm of ARMS) {
  const shipped = loadConfig(join(root, "config", arm.config));
  const kin = armKinematicsOf(shipped);
  if (!kin) throw new Error(`${arm.config} names no URDF`);
  const model = EnvelopeModel.of(shipped);
  const pairCount = model?.tests.filter((t) => t.kind === "pair").length ?? 0;
  console.log(
    `\n${arm.name}: ${kin.bodies.volumes.length} link volumes, ${pairCount} self-collision pairs checked, ${model?.tests.length ?? 0} clearances in all`,
  );
  console.log(
    `  ${"set".padEnd(34)} ${"p50".padStart(7)} ${"p99".padStart(8)} ${"max".padStart(8)} ${"p99 cpu".padStart(8)}   accepted     ${"fk p50".padStart(6)} ${"fk p99".padStart(7)} ${"pairs50".padStart(7)} ${"pairs99".padStart(8)}`,
  );
  for (const [variant, config] of [
    ["volumes", shipped],
    ["frames only", framesOnly(shipped, kin)],
  ] as const) {
    const chain = kin.chain;
    const names = kin.jointNames;
    const random = mulberry32(7);
    const randomJoints = (): Float64Array =>
      Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));
    const pose = (q: Float64Array): Record<string, number> => Object.fromEntries(names.map((n, k) => [n, q[k] ?? 0]));
    const validPose = (): Record<string, number> => {
      for (;;) {
        const p = pose(randomJoints());
        if (checkMotionEnvelope(config, p, p, "bench").ok) return p;
      }
    };
    const move = (p: Record<string, number>, joints: readonly string[]): Record<string, number> =>
      Object.fromEntries(joints.map((n) => [n, (p[n] ?? 0) + (random() - 0.5) * 0.8]));

    const full = figures();
    for (let i = 0; i < FULL + 100; i++) {
      const from = randomJoints(),
        to = randomJoints();
      timed(full, i >= 100, () => checkMotionEnvelope(config, pose(from), pose(to), "move_joints"));
    }
    report(`full range, ${variant}`, full);

    const one = figures();
    for (let i = 0; i < NEAR + 50; i++) {
      const p = validPose();
      const order = [...names].sort(() => random() - 0.5);
      const a = move(p, order.slice(0, 2));
      const b = move(p, order.slice(2, 4));
      timed(one, i >= 50, () => checkMotionEnvelope(config, p, b, "move_joints", [{ actionId: "A", from: p, to: a }]));
    }
    report(`±0.4 rad, 1 in flight, ${variant}`, one);

    const three = figures();
    for (let i = 0; i < NEAR + 50; i++) {
      const p = validPose();
      const order = [...names].sort(() => random() - 0.5);
      const inFlight: InFlightMotion[] = [0, 1, 2].map((m) => ({
        actionId: `m${m}`,
        from: p,
        to: move(p, order.slice(m, m + 1)),
      }));
      const d = move(p, order.slice(3));
      timed(three, i >= 50, () => checkMotionEnvelope(config, p, d, "move_joints", inFlight));
    }
    report(`±0.4 rad, 3 in flight, ${variant}`, three);
  }
}
