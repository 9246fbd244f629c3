/**
 * npm run bench:envelope — the safety envelope's cost per motion, with link
 * volumes and self-collision, on the shipped arms.
 *
 * Move sets (the ones bench:ik times the envelope on):
 * - "full range": random joint moves across the limits, from and to random
 *   joint vectors (2,000 moves after 100 of warm-up, seed 7) — most leave the
 *   envelope somewhere and stop at the first violation;
 * - "±0.4 rad, 1 in flight": from a random valid pose (every link inside the
 *   envelope), motion A on two joints in flight, B checked on two others,
 *   each joint ±0.4 rad (500 pairs after 50 of warm-up);
 * - "±0.4 rad, 3 in flight": the same with A, B, C in flight on disjoint
 *   joints and D checked on the rest (500 after 50).
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
  readonly fk: number[];
  readonly pairs: number[];
  accepted: number;
}

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

function timed(figures: Figures, record: boolean, run: () => ReturnType<typeof checkMotionEnvelope>): void {
  const t0 = process.hrtime.bigint();
  const verdict = run();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!record) return;
  figures.times.push(ms);
  if (verdict.ok) {
    figures.accepted++;
    figures.fk.push(verdict.samples);
    figures.pairs.push(verdict.pairChecks);
  }
}

function report(label: string, f: Figures): void {
  const t = [...f.times].sort((a, b) => a - b), fk = [...f.fk].sort((a, b) => a - b), pairs = [...f.pairs].sort((a, b) => a - b);
  console.log(
    `  ${label.padEnd(34)} ${quantile(t, 0.5).toFixed(3).padStart(7)} ${quantile(t, 0.99).toFixed(3).padStart(8)} ${(t.at(-1) ?? NaN).toFixed(2).padStart(8)}   ${String(f.accepted).padStart(5)}/${String(f.times.length).padEnd(5)} ${String(quantile(fk, 0.5)).padStart(6)} ${String(quantile(fk, 0.99)).padStart(7)} ${String(quantile(pairs, 0.5)).padStart(7)} ${String(quantile(pairs, 0.99)).padStart(8)}`,
  );
}

const root = packageRoot();
console.log("Envelope check per motion (ms wall), FK and self-collision pair evaluations per accepted motion (p50 / p99)");
for (const arm of ARMS) {
  const shipped = loadConfig(join(root, "config", arm.config));
  const kin = armKinematicsOf(shipped);
  if (!kin) throw new Error(`${arm.config} names no URDF`);
  const model = EnvelopeModel.of(shipped);
  const pairCount = model?.tests.filter((t) => t.kind === "pair").length ?? 0;
  console.log(`\n${arm.name}: ${kin.bodies.volumes.length} link volumes, ${pairCount} self-collision pairs checked, ${model?.tests.length ?? 0} clearances in all`);
  console.log(`  ${"set".padEnd(34)} ${"p50".padStart(7)} ${"p99".padStart(8)} ${"max".padStart(8)}   accepted     ${"fk p50".padStart(6)} ${"fk p99".padStart(7)} ${"pairs50".padStart(7)} ${"pairs99".padStart(8)}`);
  for (const [variant, config] of [
    ["volumes", shipped],
    ["frames only", framesOnly(shipped, kin)],
  ] as const) {
    const chain = kin.chain;
    const names = kin.jointNames;
    const randomJoints = (random: () => number): Float64Array => Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));
    const pose = (q: Float64Array): Record<string, number> => Object.fromEntries(names.map((n, k) => [n, q[k] ?? 0]));
    const validPose = (random: () => number): Record<string, number> => {
      for (;;) {
        const p = pose(randomJoints(random));
        if (checkMotionEnvelope(config, p, p, "bench").ok) return p;
      }
    };

    const full: Figures = { times: [], fk: [], pairs: [], accepted: 0 };
    const random = mulberry32(7);
    for (let i = 0; i < FULL + 100; i++) {
      const from = randomJoints(random), to = randomJoints(random);
      timed(full, i >= 100, () => checkMotionEnvelope(config, pose(from), pose(to), "move_joints"));
    }
    report(`full range, ${variant}`, full);

    for (const flying of [1, 3]) {
      const set: Figures = { times: [], fk: [], pairs: [], accepted: 0 };
      const r = mulberry32(11 + flying);
      const per = Math.max(1, Math.floor(names.length / (flying + 1)));
      for (let i = 0; i < NEAR + 50; i++) {
        const p = validPose(r);
        const order = [...names].sort(() => r() - 0.5);
        const move = (joints: readonly string[]): Record<string, number> => Object.fromEntries(joints.map((n) => [n, (p[n] ?? 0) + (r() - 0.5) * 0.8]));
        const inFlight: InFlightMotion[] = [];
        for (let m = 0; m < flying; m++) inFlight.push({ actionId: `m${m}`, from: p, to: move(order.slice(m * per, (m + 1) * per)) });
        const mine = move(order.slice(flying * per));
        if (Object.keys(mine).length === 0) continue;
        timed(set, i >= 50, () => checkMotionEnvelope(config, p, mine, "move_joints", inFlight));
      }
      report(`±0.4 rad, ${flying} in flight, ${variant}`, set);
    }
  }
}
