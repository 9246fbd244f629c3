/**
 * npm run bench:ik — inverse kinematics and the envelope check, per shipped arm.
 *
 * IK: 10,000 random reachable targets per arm. Each target is the FK of a
 * random joint vector within the limits (so it is reachable by construction);
 * the solve starts from another random joint vector (the "current" pose),
 * as a model's move_to_point from wherever the arm happens to be. Six-axis
 * arms solve the full pose, fewer-axis arms the position. Success: the solver
 * converged (0.1 mm, 1 mrad) — checked again here by FK of its answer.
 *
 * Envelope: the check every motion passes (checkMotionEnvelope), on the
 * default simulated arm, for random joint moves within the limits; its cost
 * grows with how far the links sweep (samples ≤ 2 mm apart).
 *
 * Prints figures; asserts nothing (machines are noisy: compare within a run).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config/loadConfig.js";
import { packageRoot } from "../src/config/packageRoot.js";
import { armKinematicsOf } from "../src/kinematics/armKinematics.js";
import { KinematicChain } from "../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../src/kinematics/parseUrdf.js";
import { positionOf } from "../src/kinematics/rigidTransform.js";
import { solveIk } from "../src/kinematics/solveIk.js";
import { checkMotionEnvelope } from "../src/safety/checkMotionEnvelope.js";
import { mulberry32 } from "../src/random/mulberry32.js";

const TARGETS = Number(process.env.IK_BENCH_TARGETS ?? 10_000);
const ARMS = [
  { name: "sim-arm (UR5e-sized, 6 axes)", urdf: "sim-arm.urdf", base: "base_link", tip: "tool0" },
  { name: "SO-101 (5 axes)", urdf: "so101.urdf", base: "base_link", tip: "gripper_frame_link" },
  { name: "Koch v1.1 (5 axes)", urdf: "koch-v1.1.urdf", base: "base_link", tip: "tool_link" },
];


function randomJoints(chain: KinematicChain, random: () => number): Float64Array {
  return Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));
}

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

const root = packageRoot();
/**
 * Two starts per target: "anywhere", a random current pose across the whole
 * range (the hard case: the target may lie on another IK branch, behind
 * joint limits), and "nearby", a current pose within ±0.4 rad per joint of
 * the target's joints (a model moving the arm a short way, the common case).
 */
const STARTS = ["anywhere", "nearby"] as const;
console.log(`IK: ${TARGETS} random reachable targets per arm and start\n`);
console.log("arm                               mode       start      p50 ms   p99 ms   max ms   success   worst error (converged)");
for (const arm of ARMS) for (const startKind of STARTS) {
  const path = join(root, "config", "urdf", arm.urdf);
  const chain = new KinematicChain(parseUrdf(readFileSync(path, "utf8"), path), arm.base, arm.tip, path);
  const full = chain.dof >= 6;
  const random = mulberry32(42);
  const times: number[] = [];
  let ok = 0;
  let worst = 0;
  for (let i = 0; i < TARGETS + 200; i++) {
    const truth = randomJoints(chain, random);
    const goal = chain.tip(truth);
    const current =
      startKind === "anywhere"
        ? randomJoints(chain, random)
        : truth.map((v, k) => Math.min(chain.variables[k]?.upper ?? v, Math.max(chain.variables[k]?.lower ?? v, v + (random() - 0.5) * 0.8)));
    const t0 = process.hrtime.bigint();
    const r = solveIk(chain, { position: positionOf(goal), orientation: full ? goal : undefined }, current);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i < 200) continue; // warm-up: the JIT, not the solver
    times.push(ms);
    if (r.ok) {
      ok++;
      const reached = positionOf(chain.tip(r.q));
      const g = positionOf(goal);
      worst = Math.max(worst, Math.hypot(reached[0] - g[0], reached[1] - g[1], reached[2] - g[2]));
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `${arm.name.padEnd(34)}${(full ? "pose" : "position").padEnd(11)}${startKind.padEnd(9)}${quantile(times, 0.5).toFixed(3).padStart(6)}   ${quantile(times, 0.99).toFixed(3).padStart(6)}   ${(times.at(-1) ?? NaN).toFixed(2).padStart(6)}   ${((100 * ok) / TARGETS).toFixed(2).padStart(6)} %   ${(worst * 1000).toFixed(3)} mm`,
  );
}

const config = loadConfig();
const kin = armKinematicsOf(config);
if (kin) {
  const random = mulberry32(7);
  const times: number[] = [];
  const samples: number[] = [];
  let accepted = 0;
  const MOVES = 2000;
  for (let i = 0; i < MOVES + 100; i++) {
    const from = randomJoints(kin.chain, random);
    const to = randomJoints(kin.chain, random);
    const pose = Object.fromEntries(kin.jointNames.map((n, k) => [n, from[k] ?? 0]));
    const targets = Object.fromEntries(kin.jointNames.map((n, k) => [n, to[k] ?? 0]));
    const t0 = process.hrtime.bigint();
    const verdict = checkMotionEnvelope(config, pose, targets, "move_joints");
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i < 100) continue;
    times.push(ms);
    if (verdict.ok) {
      accepted++;
      samples.push(verdict.samples);
    }
  }
  times.sort((a, b) => a - b);
  samples.sort((a, b) => a - b);
  console.log(`\nEnvelope check (sim-arm, ${MOVES} random joint moves across the full limits; ${accepted} passed, the rest stopped at their first violation):`);
  console.log(`  per motion: p50 ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms, max ${(times.at(-1) ?? NaN).toFixed(2)} ms`);
  console.log(`  samples per accepted path (≤ 2 mm apart): p50 ${quantile(samples, 0.5)}, p99 ${quantile(samples, 0.99)}`);
}
