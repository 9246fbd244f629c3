import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError, type ErrorCode } from "../errors.js";
import { armKinematicsOf, jointVectorOf } from "../kinematics/armKinematics.js";
import { identity, invert, type Transform } from "../kinematics/rigidTransform.js";
import type { MotionRefusal } from "../motion/MotionPlan.js";
import type { InFlightMotion } from "./InFlightMotions.js";

export type EnvelopeVerdict =
  | { readonly ok: true; readonly samples: number }
  | (MotionRefusal & {
      /** The first offending link, where it would be (metres, workspace frame), and at which fraction of the path. */
      readonly link?: string;
      readonly point?: readonly [number, number, number];
      readonly at?: number;
    });

/**
 * Largest distance any link frame may move between two consecutive path
 * samples (m). Every point of the continuous path then lies within half of it
 * of a sample, so samples are checked against the envelope shrunk by
 * `SAMPLE_SPACING_M / 2`: a path whose samples pass cannot leave the true
 * envelope between them. 2 mm keeps the margin (1 mm) below the arms'
 * repeatability and costs a few thousand FK evaluations for a full-range move.
 */
export const SAMPLE_SPACING_M = 0.002;
const MARGIN_M = SAMPLE_SPACING_M / 2;
/** No path is sampled more finely than this; a move that would need more is refused as unverifiable, not sampled coarsely. */
const MAX_SAMPLES = 50_000;
/**
 * With motions in flight, boxes of their joint progress are certified by the
 * sweep bound (below); a box whose bound is down to this (m) and still cannot
 * be certified is a refusal. 5 mm: the half-spacing of a 10 mm grid.
 */
export const IN_FLIGHT_RESOLUTION_M = 0.005;
/** FK evaluations one check may spend on the in-flight boxes before it refuses as unverifiable. */
const MAX_IN_FLIGHT_EVALUATIONS = 200_000;

/**
 * The safety envelope check every motion passes before anything is recorded
 * or sent (called from the executor, after the tool's plan). The path checked
 * is the straight line in joint space from the current joints to the targets
 * (joints not targeted stay where they are), which is what a synchronised
 * joint-space controller (ROS JTC, firmware-sim's MOVE) interpolates. It is
 * sampled so that no link frame moves more than SAMPLE_SPACING_M between
 * samples, and at every sample every moving link frame must be inside
 * `keep_in` and above `floor_z`; the tip may end up at most `max_step_m`
 * from where it started.
 *
 * With no kinematics or no workspace configured, or targets that move no
 * joint of the chain (the gripper), it passes.
 *
 * Motions in flight (`inFlight`, admitted earlier on other joints and not yet
 * over) move their joints at the same time, with a timing we do not know:
 * the arm's real path is any combination of the new motion at t and each
 * in-flight motion at its own s_i along its straight joint-space line
 * (stopped part way included): a box [0,1]^k of progress. Each link's
 * displacement is bounded by sweepRadius × |Δq| whatever the other joints do,
 * so every combination in a box lies within Σ sweep_i × halfwidth_i of its
 * centre: the new path at the box's centre, checked against the envelope
 * shrunk by that bound, certifies the whole box. A box that fails is split in
 * two along its widest term, until its bound is IN_FLIGHT_RESOLUTION_M — then
 * the failure is a refusal. Boxes far from the walls certify at once, so the
 * cost follows how close the combination comes to the envelope, not the
 * number of motions in flight (a uniform grid grows as a product).
 */
export function checkMotionEnvelope(
  config: ArmConfig,
  currentPose: Readonly<Record<string, number>> | undefined,
  targets: Readonly<Record<string, number>>,
  tool: string,
  inFlight: readonly InFlightMotion[] = [],
): EnvelopeVerdict {
  const workspace = config.workspace;
  const kin = armKinematicsOf(config);
  if (!workspace || !kin) return { ok: true, samples: 0 };
  if (!kin.jointNames.some((name) => targets[name] !== undefined)) return { ok: true, samples: 0 };
  const { chain } = kin;

  const q0 = jointVectorOf(kin, currentPose);
  if (!q0) {
    const missing = kin.jointNames.filter((n) => currentPose?.[n] === undefined);
    const reason = currentPose ? `no reported position for ${missing.join(", ")}` : "no status from the arm yet";
    return refusal("ARMB_ERR_POSE_UNKNOWN", { tool, reason }, "pose_unknown", "(pose)");
  }
  const q1 = Float64Array.from(q0);
  for (const [k, name] of kin.jointNames.entries()) {
    const t = targets[name];
    if (t !== undefined) q1[k] = t;
  }
  const sweepOf = (a: Float64Array, b: Float64Array): number => {
    let r = 0;
    for (let k = 0; k < chain.dof; k++) r += chain.sweepRadius(k) * Math.abs((b[k] ?? 0) - (a[k] ?? 0));
    return r;
  };

  // Each in-flight motion's segment over the chain joints it moves (and the new one does not).
  const moving: Array<{ readonly joints: number[]; readonly a: Float64Array; readonly b: Float64Array; readonly sweep: number }> = [];
  for (const m of inFlight) {
    const joints: number[] = [];
    const a = new Float64Array(chain.dof), b = new Float64Array(chain.dof);
    for (const [k, name] of kin.jointNames.entries()) {
      const from = m.from[name], to = m.to[name];
      if (to === undefined || targets[name] !== undefined) continue;
      joints.push(k);
      a[k] = from ?? to;
      b[k] = to;
    }
    if (joints.length === 0) continue;
    moving.push({ joints, a, b, sweep: sweepOf(a, b) });
  }

  // Samples so that no frame moves more than SAMPLE_SPACING_M between two of them (see SAMPLE_SPACING_M).
  const intervals = Math.max(1, Math.ceil(sweepOf(q0, q1) / SAMPLE_SPACING_M));
  // NaN (an infinite sweep radius times a joint that does not move) must refuse like a path too long, not skip the loop.
  if (!Number.isFinite(intervals) || intervals + 1 > MAX_SAMPLES) {
    const rule = `the path is too long to verify in ${MAX_SAMPLES} samples; split it into smaller moves`;
    return refusal("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link: "(path)", point: "(not checked)", rule }, "path_too_long", "(path)");
  }
  const toFrame: Transform = workspace.frame === undefined ? identity() : invert(chain.fixedFrames.get(workspace.frame) ?? identity());
  const box = workspace.keepIn;
  const floorZ = workspace.floorZ;
  const maxStep = workspace.maxStepM;
  const q = new Float64Array(chain.dof);
  const base = Float64Array.from(q0);
  const kernel = chain.kernel;
  const linkCount = chain.linkNames.length;
  const tipIndex = chain.linkNames.length - 1;
  const start = q0;
  // The new motion from `from` (its own joints from q0 to q1, in-flight joints held as given).
  const checkPath = (from: Float64Array, margin: number): EnvelopeVerdict | undefined => {
    let startTip: [number, number, number] | undefined;
    for (let s = 0; s <= intervals; s++) {
      const t = s / intervals;
      for (let k = 0; k < chain.dof; k++) q[k] = (from[k] ?? 0) + t * ((q1[k] ?? 0) - (start[k] ?? 0));
      // The IK kernel's allocation-free FK (checked against chain.frames in ChainKernel.test).
      kernel.forward(q);
      const links = kernel.linkPositions();
      for (let i = 0; i < linkCount; i++) {
        if (!chain.linkMoves[i]) continue;
        const bx = links[3 * i] ?? 0, by = links[3 * i + 1] ?? 0, bz = links[3 * i + 2] ?? 0;
        const x = (toFrame[0] ?? 1) * bx + (toFrame[4] ?? 0) * by + (toFrame[8] ?? 0) * bz + (toFrame[12] ?? 0);
        const y = (toFrame[1] ?? 0) * bx + (toFrame[5] ?? 1) * by + (toFrame[9] ?? 0) * bz + (toFrame[13] ?? 0);
        const z = (toFrame[2] ?? 0) * bx + (toFrame[6] ?? 0) * by + (toFrame[10] ?? 1) * bz + (toFrame[14] ?? 0);
        const p: [number, number, number] = [x, y, z];
        const rule = ruleBroken(p, box, floorZ, margin);
        if (rule) {
          const why =
            moving.length > 0
              ? ` with the ${moving.length} motion(s) in flight on other joints at some point of theirs; retry when they end`
              : s === 0
                ? "; the arm is already outside the envelope: move it back by hand or with joint moves that stay inside"
                : "";
          return violation(tool, chain.linkNames[i] ?? `link ${i}`, p, rule + why, t);
        }
        if (i === tipIndex) {
          startTip ??= p;
          const d = Math.hypot(x - startTip[0], y - startTip[1], z - startTip[2]);
          if (maxStep !== undefined && d > maxStep) {
            return violation(tool, chain.linkNames[i] ?? "tip", p, `it would travel ${d.toFixed(3)} m from where it started, more than max_step_m ${maxStep}; move in smaller steps`, t);
          }
        }
      }
    }
    return undefined;
  };

  if (moving.length === 0) return checkPath(base, MARGIN_M) ?? { ok: true, samples: intervals + 1 };

  // Boxes of in-flight progress still to certify: centre and half-width per motion.
  const boxes: Array<{ readonly centre: number[]; readonly half: number[] }> = [{ centre: moving.map(() => 0.5), half: moving.map(() => 0.5) }];
  let evaluations = 0;
  for (let next = boxes.pop(); next !== undefined; next = boxes.pop()) {
    const { centre, half } = next;
    for (const [i, g] of moving.entries()) {
      const s = centre[i] ?? 0;
      for (const k of g.joints) base[k] = (g.a[k] ?? 0) + s * ((g.b[k] ?? 0) - (g.a[k] ?? 0));
    }
    const bound = moving.reduce((sum, g, i) => sum + g.sweep * (half[i] ?? 0), 0);
    evaluations += intervals + 1;
    const verdict = checkPath(base, MARGIN_M + bound);
    if (!verdict) continue;
    if (bound <= IN_FLIGHT_RESOLUTION_M) return verdict;
    if (evaluations > MAX_IN_FLIGHT_EVALUATIONS) {
      const rule = `the path cannot be verified alongside the ${moving.length} motion(s) in flight in ${MAX_IN_FLIGHT_EVALUATIONS} evaluations; retry when they end, or move in smaller steps`;
      return refusal("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link: "(path)", point: "(not checked)", rule }, "path_too_long", "(path)");
    }
    // Split along the motion whose share of the bound is largest.
    let widest = 0;
    for (let i = 1; i < moving.length; i++) if ((moving[i]?.sweep ?? 0) * (half[i] ?? 0) > (moving[widest]?.sweep ?? 0) * (half[widest] ?? 0)) widest = i;
    const h = (half[widest] ?? 0) / 2;
    for (const side of [1, -1]) {
      const c = [...centre];
      c[widest] = (c[widest] ?? 0) + side * h;
      const hh = [...half];
      hh[widest] = h;
      boxes.push({ centre: c, half: hh });
    }
  }
  return { ok: true, samples: evaluations };
}

const AXES = ["x", "y", "z"] as const;

function ruleBroken(p: readonly [number, number, number], box: { min: readonly number[]; max: readonly number[] } | undefined, floorZ: number | undefined, margin: number): string | undefined {
  const mm = Number((margin * 1000).toFixed(1));
  // NaN compares false with every bound: a frame whose position overflowed must fail the check, not pass it.
  if ((floorZ !== undefined || box) && !Number.isFinite(p[0] + p[1] + p[2])) return "its position is not a finite number (the URDF's origins or the joint values overflow)";
  if (floorZ !== undefined && p[2] < floorZ + margin) return `z ${p[2].toFixed(3)} is below floor_z ${floorZ} (+${mm} mm sampling margin)`;
  if (box) {
    for (let a = 0; a < 3; a++) {
      const v = p[a] ?? 0;
      const lo = box.min[a] ?? -Infinity, hi = box.max[a] ?? Infinity;
      if (v < lo + margin) return `${AXES[a]} ${v.toFixed(3)} is below keep_in.min ${lo} (+${mm} mm sampling margin)`;
      if (v > hi - margin) return `${AXES[a]} ${v.toFixed(3)} is above keep_in.max ${hi} (−${mm} mm sampling margin)`;
    }
  }
  return undefined;
}

function violation(tool: string, link: string, p: readonly [number, number, number], rule: string, at: number): EnvelopeVerdict {
  const point = `(${p.map((v) => v.toFixed(3)).join(", ")}) m`;
  const e = new ArmbridgeError("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link, point, rule });
  return { ok: false, code: e.code, issues: [{ path: "(envelope)", code: "outside_envelope", message: `${e.message} (at ${Math.round(at * 100)}% of the path)` }], link, point: p, at };
}

function refusal(code: ErrorCode, details: Record<string, string>, issueCode: string, path: string): EnvelopeVerdict {
  const e = new ArmbridgeError(code, details);
  return { ok: false, code, issues: [{ path, code: issueCode, message: e.message }] };
}
