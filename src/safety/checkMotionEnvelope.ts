import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError } from "../errors.js";
import { jointVectorOf } from "../kinematics/armKinematics.js";
import { certifyPath, walkScratchFor } from "./certifyPath.js";
import { EnvelopeModel } from "./EnvelopeModel.js";
import { envelopeRefusal } from "./envelopeRefusal.js";
import type { EnvelopeVerdict } from "./EnvelopeVerdict.js";
import type { InFlightMotion } from "./InFlightMotions.js";
import { IN_FLIGHT_RESOLUTION_M, MARGIN_M } from "./margins.js";
import { whenInFlightEnd } from "./inFlightWords.js";

/** FK evaluations one check may spend before it refuses as unverifiable. */
const MAX_EVALUATIONS = 200_000;

/**
 * The safety envelope check every motion passes before anything is recorded
 * or sent (called from the executor, after the tool's plan). The path checked
 * is the straight line in joint space from the current joints to the targets
 * (joints not targeted stay where they are), which is what a synchronised
 * joint-space controller (ROS JTC, firmware-sim's MOVE) interpolates. Along
 * all of it (not at samples: certifyPath bounds the clearances between the
 * points it evaluates), every moving link frame and every link volume must
 * stay inside `keep_in`, above `floor_z` and out of every `keep_out` zone,
 * by MARGIN_M; link volumes must keep MARGIN_M from each other except
 * adjacent links and `allowed_contacts`; the tip may end up at most
 * `max_step_m` from where it started.
 *
 * With no kinematics, or targets that move no joint of the chain (the
 * gripper), it passes.
 *
 * Motions in flight (`inFlight`, admitted earlier on other joints and not yet
 * over) move their joints at the same time, with a timing we do not know:
 * the arm's real path is any combination of the new motion at t and each
 * in-flight motion at its own s_i along its straight joint-space line
 * (stopped part way included): a box [0,1]^k of progress. Each test's
 * clearance changes by at most its rate × |Δq| per joint whatever the other
 * joints do, so every combination in a box lies within Σ rate_i ×
 * halfwidth_i of its centre: the new path at the box's centre, certified
 * with that bound added to the margin, certifies the whole box for that
 * test. A test that cannot be certified over a box is set aside and only it
 * is checked again over the box's two halves (split along the motion with
 * the widest share of its bound), until its bound is IN_FLIGHT_RESOLUTION_M
 * — then the failure is a refusal. Tests the motions in flight barely
 * touch are certified once; the work goes where a clearance is small.
 */
export function checkMotionEnvelope(
  config: ArmConfig,
  currentPose: Readonly<Record<string, number>> | undefined,
  targets: Readonly<Record<string, number>>,
  tool: string,
  inFlight: readonly InFlightMotion[] = [],
): EnvelopeVerdict {
  const model = EnvelopeModel.of(config);
  if (!model?.checksAnything) return { ok: true, samples: 0, pairChecks: 0 };
  const kin = model.kin;
  if (!kin.jointNames.some((name) => targets[name] !== undefined)) return { ok: true, samples: 0, pairChecks: 0 };
  const q0 = jointVectorOf(kin, currentPose);
  if (!q0) return poseUnknown(kin.jointNames, currentPose, tool);
  const delta = new Float64Array(kin.chain.dof);
  for (const [k, name] of kin.jointNames.entries()) {
    const t = targets[name];
    if (t !== undefined) delta[k] = t - (q0[k] ?? 0);
  }
  const moving = segmentsInFlight(kin.jointNames, kin.chain.dof, targets, inFlight);
  const T = model.tests.length;
  const rates = new Float64Array(T);
  for (let t = 0; t < T; t++) rates[t] = clearanceRate(model, t, (k) => delta[k] ?? 0);
  // Per test and motion in flight: how much its whole segment can change the test's clearance.
  const flightRates = moving.map((g) =>
    Float64Array.from({ length: T }, (_, t) => clearanceRate(model, t, (k) => (g.b[k] ?? 0) - (g.a[k] ?? 0), g.joints)),
  );
  // An unbounded rate (a joint whose reach the chain cannot bound) certifies nothing: refuse, never skip.
  if (!rates.every(Number.isFinite) || !flightRates.every((r) => r.every(Number.isFinite)))
    return pathNotChecked(
      tool,
      "how far the links can move along this path cannot be bounded; split it into smaller moves",
    );
  return certifyAlongsideInFlight({ model, tool, q0, delta, rates, flightRates, moving });
}

/** One in-flight motion's segment over the chain joints it moves (and the new one does not), from `a` to `b`. */
interface FlightSegment {
  readonly actionId: string;
  readonly joints: number[];
  readonly a: Float64Array;
  readonly b: Float64Array;
  readonly motion: InFlightMotion;
}

/** A box of in-flight progress, with the tests still to certify over it. */
interface ProgressBox {
  readonly centre: number[];
  readonly half: number[];
  readonly tests: readonly number[];
}

function poseUnknown(
  jointNames: readonly string[],
  currentPose: Readonly<Record<string, number>> | undefined,
  tool: string,
): EnvelopeVerdict {
  const missing = jointNames.filter((n) => currentPose?.[n] === undefined);
  const reason = currentPose ? `no reported position for ${missing.join(", ")}` : "no status from the arm yet";
  const e = new ArmbridgeError("ARMB_ERR_POSE_UNKNOWN", { tool, reason });
  return { ok: false, code: e.code, issues: [{ path: "(pose)", code: "pose_unknown", message: e.message }] };
}

/** A path the check could not get through (unbounded, or over its budget): refused, never let pass. */
function pathNotChecked(tool: string, rule: string): EnvelopeVerdict {
  const e = new ArmbridgeError("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link: "(path)", point: "(not checked)", rule });
  return { ok: false, code: e.code, issues: [{ path: "(path)", code: "path_too_long", message: e.message }] };
}

function segmentsInFlight(
  jointNames: readonly string[],
  dof: number,
  targets: Readonly<Record<string, number>>,
  inFlight: readonly InFlightMotion[],
): FlightSegment[] {
  const moving: FlightSegment[] = [];
  for (const m of inFlight) {
    const joints: number[] = [];
    const a = new Float64Array(dof),
      b = new Float64Array(dof);
    for (const [k, name] of jointNames.entries()) {
      const from = m.from[name],
        to = m.to[name];
      if (to === undefined || targets[name] !== undefined) continue;
      joints.push(k);
      a[k] = from ?? to;
      b[k] = to;
    }
    if (joints.length > 0) moving.push({ actionId: m.actionId, joints, a, b, motion: m });
  }
  return moving;
}

/** How much test `t`'s clearance can change over a joint step `d` (of the given joints, or all). */
function clearanceRate(model: EnvelopeModel, t: number, d: (k: number) => number, joints?: readonly number[]): number {
  const dof = model.kin.chain.dof;
  let r = 0;
  // A joint that does not move adds nothing, even beside an unbounded reach (∞ × 0 would be NaN).
  const add = (k: number): void => {
    const step = Math.abs(d(k));
    if (step > 0) r += (model.rates[t * dof + k] ?? 0) * step;
  };
  if (joints) for (const k of joints) add(k);
  else for (let k = 0; k < dof; k++) add(k);
  return r;
}

/**
 * The new path certified over every box of in-flight progress: a test
 * certified over a box is done there, and only the tests that could not be
 * are split further (along the motion with the widest share of their bound).
 */
function certifyAlongsideInFlight(check: {
  readonly model: EnvelopeModel;
  readonly tool: string;
  readonly q0: Float64Array;
  readonly delta: Float64Array;
  readonly rates: Float64Array;
  readonly flightRates: readonly Float64Array[];
  readonly moving: readonly FlightSegment[];
}): EnvelopeVerdict {
  const { model, tool, delta, rates, flightRates, moving } = check;
  const T = model.tests.length;
  const scratch = walkScratchFor(model);
  const start = Float64Array.from(check.q0);
  const bounds = new Float64Array(T);
  const active = new Uint8Array(T);
  const boxes: ProgressBox[] = [
    { centre: moving.map(() => 0.5), half: moving.map(() => 0.5), tests: Array.from({ length: T }, (_, t) => t) },
  ];
  let evaluations = 0,
    pairChecks = 0;
  for (let box = boxes.pop(); box !== undefined; box = boxes.pop()) {
    const { centre, half } = box;
    for (const [i, g] of moving.entries()) {
      const s = centre[i] ?? 0;
      for (const k of g.joints) start[k] = (g.a[k] ?? 0) + s * ((g.b[k] ?? 0) - (g.a[k] ?? 0));
    }
    active.fill(0);
    for (const t of box.tests) {
      active[t] = 1;
      bounds[t] = flightRates.reduce((sum, r, i) => sum + (r[t] ?? 0) * (half[i] ?? 0), 0);
    }
    const budget = MAX_EVALUATIONS - evaluations;
    const walk = certifyPath(
      model,
      { start, delta, rates, bounds, margin: MARGIN_M, budget, active, deferAbove: IN_FLIGHT_RESOLUTION_M },
      scratch,
    );
    evaluations += walk.evaluations;
    pairChecks += walk.pairChecks;
    if (walk.ok) {
      if (walk.deferred.length > 0) boxes.push(...halvesOf(box, walk.deferred, flightRates));
      continue;
    }
    const whenTheyEnd = whenInFlightEnd(moving.map((g) => g.motion));
    if (walk.reason === "budget")
      return pathNotChecked(
        tool,
        moving.length > 0
          ? `the path cannot be verified alongside the ${moving.length} motion(s) in flight in ${MAX_EVALUATIONS} evaluations; ${whenTheyEnd}, or move in smaller steps`
          : `the path cannot be verified in ${MAX_EVALUATIONS} evaluations; split it into smaller moves`,
      );
    const inFlightIds = moving.map((g) => g.actionId);
    const bound = bounds[walk.test] ?? 0;
    return envelopeRefusal({
      model,
      tool,
      test: walk.test,
      s: walk.s,
      start,
      delta,
      bound,
      inFlight: inFlightIds,
      whenTheyEnd,
    });
  }
  return { ok: true, samples: evaluations, pairChecks };
}

/** A box split in two along the motion in flight with the largest share of the deferred tests' bounds. */
function halvesOf(box: ProgressBox, deferred: readonly number[], flightRates: readonly Float64Array[]): ProgressBox[] {
  const { centre, half } = box;
  const share = (i: number): number =>
    deferred.reduce((sum, t) => sum + (flightRates[i]?.[t] ?? 0) * (half[i] ?? 0), 0);
  let widest = 0;
  for (let i = 1; i < flightRates.length; i++) if (share(i) > share(widest)) widest = i;
  const h = (half[widest] ?? 0) / 2;
  return [1, -1].map((side) => {
    const c = [...centre];
    c[widest] = (c[widest] ?? 0) + side * h;
    const hh = [...half];
    hh[widest] = h;
    return { centre: c, half: hh, tests: deferred };
  });
}
