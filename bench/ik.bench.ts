/**
 * npm run bench:ik — inverse kinematics and the envelope check, per shipped arm.
 *
 * IK: 10,000 random reachable targets per shipped arm config (sim-arm.yaml,
 * so101.yaml, koch-follower.yaml, with their URDFs and the config's joint
 * limits, as the bridge loads them). Each target is the FK of a random joint
 * vector within the limits (reachable by construction). The solve starts
 * where the product starts it, from the arm's current pose, and the bench
 * samples that as a random *valid* pose: a random joint vector within the
 * limits whose every link frame is inside the config's envelope (an arm can
 * only be standing where the envelope let it go), independent of the target,
 * so the answer often lies on another IK branch. A second row starts from a
 * pose within ±0.4 rad per joint of the target's joints (a short nudge).
 * Six-axis arms solve the full pose, fewer-axis arms the position. Success:
 * the solver converged (0.1 mm, 1 mrad) — checked again here by FK.
 *
 * Envelope: the check every motion passes (checkMotionEnvelope), on the
 * default simulated arm, for random joint moves within the limits; its cost
 * grows with how far the links sweep (samples ≤ 2 mm apart).
 *
 * Prints figures; asserts nothing (machines are noisy: compare within a run).
 */
import { join } from "node:path";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { packageRoot } from "../src/config/packageRoot.js";
import { armKinematicsOf } from "../src/kinematics/armKinematics.js";
import type { KinematicChain } from "../src/kinematics/KinematicChain.js";
import { positionOf } from "../src/kinematics/rigidTransform.js";
import { solveIk } from "../src/kinematics/solveIk.js";
import { checkMotionEnvelope } from "../src/safety/checkMotionEnvelope.js";
import { mulberry32 } from "../src/random/mulberry32.js";

const TARGETS = Number(process.env.IK_BENCH_TARGETS ?? 10_000);
const ARMS = [
  { name: "sim-arm (UR5e-sized, 6 axes)", config: "sim-arm.yaml" },
  { name: "SO-101 (5 axes)", config: "so101.yaml" },
  { name: "Koch v1.1 (5 axes)", config: "koch-follower.yaml" },
];

function randomJoints(chain: KinematicChain, random: () => number): Float64Array {
  return Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));
}

/** A random pose the arm may really be standing in: within the limits and every link inside the envelope. */
function randomValidPose(
  config: ArmConfig,
  chain: KinematicChain,
  names: readonly string[],
  random: () => number,
): Float64Array {
  for (;;) {
    const q = randomJoints(chain, random);
    const pose = Object.fromEntries(names.map((n, k) => [n, q[k] ?? 0]));
    if (checkMotionEnvelope(config, pose, pose, "bench").ok) return q;
  }
}

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

const root = packageRoot();
const STARTS = ["valid pose", "nearby"] as const;
console.log(`IK: ${TARGETS} random reachable targets per arm and start\n`);
// Wall time is what a caller waits; CPU time (this process, user + system) is what the solver
// costs, and does not grow when a loaded machine deschedules the process mid-solve.
console.log(
  "arm                               mode       start         p50 ms   p99 ms   max ms   p99 cpu ms   success   starts p99   worst error (converged)",
);
for (const arm of ARMS)
  for (const startKind of STARTS) {
    const armConfig = loadConfig(join(root, "config", arm.config));
    const armKin = armKinematicsOf(armConfig);
    if (!armKin) throw new Error(`${arm.config} names no URDF`);
    const chain = armKin.chain;
    const full = chain.dof >= 6;
    const random = mulberry32(42);
    const times: number[] = [];
    const cpu: number[] = [];
    const starts: number[] = [];
    let ok = 0;
    let worst = 0;
    for (let i = 0; i < TARGETS + 200; i++) {
      const truth = randomJoints(chain, random);
      const goal = chain.tip(truth);
      const current =
        startKind === "valid pose"
          ? randomValidPose(armConfig, chain, armKin.jointNames, random)
          : truth.map((v, k) =>
              Math.min(
                chain.variables[k]?.upper ?? v,
                Math.max(chain.variables[k]?.lower ?? v, v + (random() - 0.5) * 0.8),
              ),
            );
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const r = solveIk(chain, { position: positionOf(goal), orientation: full ? goal : undefined }, current);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const used = process.cpuUsage(c0);
      if (i < 200) continue; // warm-up: the JIT, not the solver
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
      starts.push(r.starts);
      if (r.ok) {
        ok++;
        const reached = positionOf(chain.tip(r.q));
        const g = positionOf(goal);
        worst = Math.max(worst, Math.hypot(reached[0] - g[0], reached[1] - g[1], reached[2] - g[2]));
      }
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    starts.sort((a, b) => a - b);
    console.log(
      `${arm.name.padEnd(34)}${(full ? "pose" : "position").padEnd(11)}${startKind.padEnd(12)}${quantile(times, 0.5).toFixed(3).padStart(6)}   ${quantile(times, 0.99).toFixed(3).padStart(6)}   ${(times.at(-1) ?? NaN).toFixed(2).padStart(6)}   ${quantile(cpu, 0.99).toFixed(3).padStart(10)}   ${((100 * ok) / TARGETS).toFixed(2).padStart(6)} %   ${String(quantile(starts, 0.99)).padStart(10)}   ${(worst * 1000).toFixed(3)} mm`,
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
  console.log(
    `\nEnvelope check (sim-arm, ${MOVES} random joint moves across the full limits; ${accepted} passed, the rest stopped at their first violation):`,
  );
  console.log(
    `  per motion: p50 ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms, max ${(times.at(-1) ?? NaN).toFixed(2)} ms`,
  );
  console.log(
    `  samples per accepted path (≤ 2 mm apart): p50 ${quantile(samples, 0.5)}, p99 ${quantile(samples, 0.99)}`,
  );

  // Admission alongside a motion in flight: B (other joints) checked over every combination with A's progress.
  const pairTimes: number[] = [];
  const pairSamples: number[] = [];
  let pairAccepted = 0;
  const PAIRS = 500;
  for (let i = 0; i < PAIRS + 50; i++) {
    const from = randomValidPose(config, kin.chain, kin.jointNames, random);
    const pose = Object.fromEntries(kin.jointNames.map((n, k) => [n, from[k] ?? 0]));
    const order = [...kin.jointNames].sort(() => random() - 0.5);
    const move = (names: readonly string[]): Record<string, number> =>
      Object.fromEntries(names.map((n) => [n, (pose[n] ?? 0) + (random() - 0.5) * 0.8]));
    const a = move(order.slice(0, 2));
    const b = move(order.slice(2, 4));
    const t0 = process.hrtime.bigint();
    const verdict = checkMotionEnvelope(config, pose, b, "move_joints", [{ actionId: "A", from: pose, to: a }]);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i < 50) continue;
    pairTimes.push(ms);
    if (verdict.ok) {
      pairAccepted++;
      pairSamples.push(verdict.samples);
    }
  }
  pairTimes.sort((x, y) => x - y);
  pairSamples.sort((x, y) => x - y);
  console.log(
    `\nEnvelope check with one motion in flight (sim-arm, ${PAIRS} random pairs on disjoint joints, ±0.4 rad each from a valid pose; ${pairAccepted} passed):`,
  );
  console.log(
    `  per motion: p50 ${quantile(pairTimes, 0.5).toFixed(3)} ms, p99 ${quantile(pairTimes, 0.99).toFixed(3)} ms, max ${(pairTimes.at(-1) ?? NaN).toFixed(2)} ms`,
  );
  console.log(
    `  FK evaluations per accepted motion (boxes of in-flight progress × path samples): p50 ${quantile(pairSamples, 0.5)}, p99 ${quantile(pairSamples, 0.99)}`,
  );
}
