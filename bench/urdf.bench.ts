/**
 * npm run bench:urdf — how long loading a URDF takes as it grows.
 *
 * A URDF is untrusted input read once at start (a file, or the
 * /robot_description topic), and the bridge is not ready until it is loaded:
 * loading must stay linear in the number of links and joints, or a large (or
 * hostile) description holds start-up hostage. Each row builds a robot of N
 * fixed joints hanging off the base (sensor mounts, a tool changer's frames:
 * every one is a frame rigidly attached to the base, which the envelope
 * resolves), then one revolute joint to the tip, and times parseUrdf and
 * the KinematicChain built on it. The last column is time per joint:
 * roughly flat when loading is linear, growing with N when it is not.
 *
 * Prints figures; asserts nothing (machines are noisy: compare within a run).
 */
import { KinematicChain } from "../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../src/kinematics/parseUrdf.js";

const SIZES = (process.env.URDF_BENCH_SIZES ?? "1000,4000,10000,40000").split(",").map(Number);

function urdfWithFixedJoints(n: number): string {
  const parts = ['<robot name="bench">', '<link name="base_link"/>'];
  for (let i = 0; i < n; i++) {
    const parent = i === 0 ? "base_link" : `f${i - 1}`;
    parts.push(
      `<link name="f${i}"/>`,
      `<joint name="fixed_${i}" type="fixed"><parent link="${parent}"/><child link="f${i}"/><origin xyz="0 0 0.001" rpy="0 0 0.01"/></joint>`,
    );
  }
  parts.push(
    '<link name="tip"/>',
    `<joint name="j0" type="revolute"><parent link="${n > 0 ? `f${n - 1}` : "base_link"}"/><child link="tip"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>`,
    "</robot>",
  );
  return parts.join("\n");
}

function ms(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e6;
}

// Warm the JIT on a small model first, so the first row measures loading, not compilation.
new KinematicChain(parseUrdf(urdfWithFixedJoints(200), "warm-up.urdf"), "base_link", "tip", "warm-up.urdf");

console.log("URDF load time (parseUrdf + KinematicChain), N fixed joints from the base then one revolute joint");
console.log(
  ["N joints", "bytes", "parse ms", "chain ms", "total ms", "µs per joint"].map((h) => h.padStart(14)).join(""),
);
for (const n of SIZES) {
  const text = urdfWithFixedJoints(n);
  const t0 = process.hrtime.bigint();
  const model = parseUrdf(text, "bench.urdf");
  const parseMs = ms(t0);
  const t1 = process.hrtime.bigint();
  const chain = new KinematicChain(model, "base_link", "tip", "bench.urdf");
  const chainMs = ms(t1);
  if (chain.fixedFrames.size !== n + 1)
    throw new Error(`expected ${n + 1} fixed frames, got ${chain.fixedFrames.size}`);
  const total = parseMs + chainMs;
  console.log(
    [
      n + 1,
      text.length,
      parseMs.toFixed(1),
      chainMs.toFixed(1),
      total.toFixed(1),
      ((total * 1000) / (n + 1)).toFixed(1),
    ]
      .map((c) => String(c).padStart(14))
      .join(""),
  );
}
