import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { identity, invert, type Transform } from "../../src/kinematics/rigidTransform.js";

/** A straight joint-space motion: its joints' values at the start and its targets (joint name → rad). */
export interface JointSegment {
  readonly from: Readonly<Record<string, number>>;
  readonly to: Readonly<Record<string, number>>;
}

/** Where two motions, at some progress of each, take a link outside the workspace envelope, and how far. */
export interface OutsideMeeting {
  /** How far outside (m): below floor_z, or beyond a face of keep_in. */
  readonly depthM: number;
  readonly link: string;
  /** The link's position in the workspace frame (m). */
  readonly point: readonly [number, number, number];
  /** Progress of each motion (0 = its start, 1 = its target). */
  readonly at: readonly [number, number];
  readonly rule: string;
}

export interface MeetingSampling {
  /** Largest joint-space step between samples, as travel of the farthest link (m). Default 5 mm. */
  readonly spacingM?: number;
  /** Samples per motion at most; a longer motion is sampled more coarsely (a judge may miss, never invent). Default 120. */
  readonly maxSamples?: number;
}

/**
 * The deepest point outside the workspace envelope that any combination of
 * two motions' progress reaches: motion `a` at every sample of its line and
 * motion `b` at every sample of its own, independently, the other joints
 * held at `pose`. A dense grid over both progresses, plain forward
 * kinematics and the envelope's rules with no margin — deliberately not the
 * bridge's certification (checkMotionEnvelope's sweep-bound boxes), so the
 * crash loop's judge does not share its assumptions. A sample can only miss a
 * violation between samples, never report one that is not there.
 *
 * Undefined when the config has no kinematics or workspace, or when no sample
 * is outside.
 */
export function deepestMeetingOutside(
  config: ArmConfig,
  pose: Readonly<Record<string, number>>,
  a: JointSegment,
  b: JointSegment,
  sampling: MeetingSampling = {},
): OutsideMeeting | undefined {
  const workspace = config.workspace;
  const kin = armKinematicsOf(config);
  if (!workspace || !kin) return undefined;
  const { chain } = kin;
  const homes = new Map(config.arm.joints.map((j) => [j.name, j.home]));
  const spacing = sampling.spacingM ?? 0.005;
  const maxSamples = sampling.maxSamples ?? 120;
  const base = Float64Array.from(kin.jointNames, (n) => pose[n] ?? homes.get(n) ?? 0);
  const lineOf = (s: JointSegment): { k: number[]; from: number[]; delta: number[]; n: number } => {
    const k: number[] = [],
      from: number[] = [],
      delta: number[] = [];
    let sweep = 0;
    for (const [i, name] of kin.jointNames.entries()) {
      const to = s.to[name];
      if (to === undefined) continue;
      const start = s.from[name] ?? base[i] ?? 0;
      k.push(i);
      from.push(start);
      delta.push(to - start);
      sweep += chain.sweepRadius(i) * Math.abs(to - start);
    }
    return { k, from, delta, n: Math.min(maxSamples, Math.max(1, Math.ceil(sweep / spacing))) };
  };
  const la = lineOf(a),
    lb = lineOf(b);
  const toFrame: Transform =
    workspace.frame === undefined ? identity() : invert(chain.fixedFrames.get(workspace.frame) ?? identity());
  const box = workspace.keepIn;
  const floorZ = workspace.floorZ;
  const q = Float64Array.from(base);
  const m = toFrame;
  let worst: OutsideMeeting | undefined;
  for (let i = 0; i <= la.n; i++) {
    const ta = i / la.n;
    for (let x = 0; x < la.k.length; x++) q[la.k[x] ?? 0] = (la.from[x] ?? 0) + ta * (la.delta[x] ?? 0);
    for (let j = 0; j <= lb.n; j++) {
      const tb = j / lb.n;
      for (let x = 0; x < lb.k.length; x++) q[lb.k[x] ?? 0] = (lb.from[x] ?? 0) + tb * (lb.delta[x] ?? 0);
      chain.kernel.forward(q);
      const links = chain.kernel.linkPositions();
      for (let l = 0; l < chain.linkNames.length; l++) {
        if (!chain.linkMoves[l]) continue;
        const bx = links[3 * l] ?? 0,
          by = links[3 * l + 1] ?? 0,
          bz = links[3 * l + 2] ?? 0;
        const px = (m[0] ?? 1) * bx + (m[4] ?? 0) * by + (m[8] ?? 0) * bz + (m[12] ?? 0);
        const py = (m[1] ?? 0) * bx + (m[5] ?? 1) * by + (m[9] ?? 0) * bz + (m[13] ?? 0);
        const pz = (m[2] ?? 0) * bx + (m[6] ?? 0) * by + (m[10] ?? 1) * bz + (m[14] ?? 0);
        const depth = depthOutside(px, py, pz, box, floorZ);
        if (depth > 0 && (!worst || depth > worst.depthM)) {
          const point = [px, py, pz] as const;
          worst = {
            depthM: depth,
            link: chain.linkNames[l] ?? `link ${l}`,
            point,
            at: [ta, tb],
            rule: ruleOf(point, box, floorZ),
          };
        }
      }
    }
  }
  return worst;
}

const AXES = ["x", "y", "z"] as const;

/** How far outside the envelope a point is (m); 0 or less inside. */
function depthOutside(
  x: number,
  y: number,
  z: number,
  box: { min: readonly number[]; max: readonly number[] } | undefined,
  floorZ: number | undefined,
): number {
  let d = floorZ === undefined ? -Infinity : floorZ - z;
  if (box) {
    d = Math.max(d, (box.min[0] ?? -Infinity) - x, x - (box.max[0] ?? Infinity));
    d = Math.max(d, (box.min[1] ?? -Infinity) - y, y - (box.max[1] ?? Infinity));
    d = Math.max(d, (box.min[2] ?? -Infinity) - z, z - (box.max[2] ?? Infinity));
  }
  return d;
}

/** The rule the point breaks most, in words. */
function ruleOf(
  p: readonly [number, number, number],
  box: { min: readonly number[]; max: readonly number[] } | undefined,
  floorZ: number | undefined,
): string {
  const rules: { depth: number; rule: string }[] = [];
  if (floorZ !== undefined) rules.push({ depth: floorZ - p[2], rule: `z ${p[2].toFixed(3)} below floor_z ${floorZ}` });
  if (box) {
    for (let a = 0; a < 3; a++) {
      const v = p[a] ?? 0;
      rules.push({
        depth: (box.min[a] ?? -Infinity) - v,
        rule: `${AXES[a]} ${v.toFixed(3)} below keep_in.min ${box.min[a]}`,
      });
      rules.push({
        depth: v - (box.max[a] ?? Infinity),
        rule: `${AXES[a]} ${v.toFixed(3)} above keep_in.max ${box.max[a]}`,
      });
    }
  }
  return rules.reduce((w, r) => (r.depth > w.depth ? r : w), { depth: -Infinity, rule: "" }).rule;
}
