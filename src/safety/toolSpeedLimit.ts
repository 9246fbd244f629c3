import type { ArmConfig } from "../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../config/actuators.js";
import { ArmbridgeError } from "../errors.js";
import { armKinematicsOf, jointVectorOf, type ArmKinematics } from "../kinematics/armKinematics.js";
import { axisPeaks } from "../motion/axisPeaks.js";
import type { MotionTiming } from "../motion/MotionTiming.js";
import type { MotionRefusal } from "../motion/MotionPlan.js";
import type { InFlightMotion } from "./InFlightMotions.js";
import { apart, whenInFlightEnd } from "./inFlightWords.js";

export type ToolSpeedVerdict =
  | {
      readonly ok: true;
      /** The speed to send: the plan's, or lower so the tool stays under the limit. */
      readonly speed: number;
      /** The bound on the tool's speed at that speed (m/s); undefined when no limit is configured. */
      readonly toolMps: number | undefined;
      /** The bound at the plan's own speed, when it had to be lowered. */
      readonly requestedMps: number | undefined;
    }
  | (MotionRefusal & { readonly toolMps?: number });

export interface ToolSpeedInput {
  readonly config: ArmConfig;
  readonly pose: Readonly<Record<string, number>> | undefined;
  readonly targets: Readonly<Record<string, number>>;
  readonly speed: number;
  readonly inFlight: readonly InFlightMotion[];
  /** How the transport times motions; undefined when it does not say. */
  readonly timing: MotionTiming | undefined;
  readonly transport: string;
  readonly tool: string;
}

/**
 * `limits.max_tool_speed_mps`: bounds how fast the tool frame (arm.tip_link)
 * can move along the planned motion and, when that bound is over the limit,
 * lowers the motion's speed until it is not. The bound is sound for the way
 * the transport times the motion (MotionTiming):
 *
 * - one synchronised time law on the straight joint-space line (a single ROS
 *   controller, nothing else moving): |v| = |J(q(s))·Δq|·ds/dt, bounded by
 *   the largest |J·Δq| along the path — sampled, plus the most it can grow
 *   between samples — times the time law's peak rate;
 * - anything else (each axis on its own profile, several controllers,
 *   motions in flight on other joints): |v| ≤ Σ_k |ω_k × (p − o_k)|·|q̇_k| ≤
 *   Σ_k ρ_k·v̂_k, with v̂_k each axis's peak velocity and ρ_k a bound on the
 *   tool's distance from joint k's origin anywhere in the box of joint values
 *   the motions can produce (its value at the box's centre plus how far the
 *   joints downstream can move it).
 *
 * Speed moves every bound monotonically, so the largest speed under the
 * limit is found by bisection down to `limits.min_speed`; below that, or
 * where the transport cannot move an axis slower (a servo's smallest velocity
 * step), the motion is refused. A transport that does not say how it times
 * motions cannot be bounded at all: refused while a limit is configured.
 */
export function limitToolSpeed(input: ToolSpeedInput): ToolSpeedVerdict {
  const { config, tool } = input;
  const cap = config.limits.maxToolSpeedMps;
  const kin = armKinematicsOf(config);
  if (cap === undefined || !kin) return { ok: true, speed: input.speed, toolMps: undefined, requestedMps: undefined };
  if (!kin.jointNames.some((n) => input.targets[n] !== undefined))
    return { ok: true, speed: input.speed, toolMps: undefined, requestedMps: undefined };
  const refuse = (reason: string, toolMps?: number): ToolSpeedVerdict => {
    const e = new ArmbridgeError("ARMB_ERR_TOOL_SPEED_LIMIT", {
      tool,
      speed: toolMps === undefined ? "an unknown speed" : apart(toolMps, cap).value,
      limit: apart(toolMps ?? 0, cap).limit,
      reason,
    });
    return {
      ok: false,
      code: e.code,
      issues: [{ path: "plan.speed", code: "tool_speed_limit", message: e.message }],
      ...(toolMps === undefined ? {} : { toolMps }),
    };
  };
  const timing = input.timing;
  if (!timing)
    return refuse(
      `the ${input.transport} transport does not say how it times a motion, so the tool's speed can be neither bounded nor lowered`,
    );
  const q0 = jointVectorOf(kin, input.pose);
  if (!q0 || !input.pose) return refuse("the arm's current pose is unknown");
  const pose = input.pose;
  const actuators = new Map<string, Actuator>(actuatorsOf(config).map((a) => [a.name, a]));
  const chainTargets = Object.fromEntries(
    kin.jointNames.filter((n) => input.targets[n] !== undefined).map((n) => [n, input.targets[n] ?? 0]),
  );
  const flights = input.inFlight
    .map((m) => ({ m, joints: kin.jointNames.filter((n) => m.to[n] !== undefined && input.targets[n] === undefined) }))
    .filter((f) => f.joints.length > 0);

  const bound = toolSpeedBound(kin, q0, chainTargets, pose, flights, timing, actuators);
  const at = (speed: number): number => bound(speed);
  const requested = at(input.speed);
  if (requested <= cap) return { ok: true, speed: input.speed, toolMps: requested, requestedMps: undefined };
  const floor = config.limits.minSpeed;
  const slowest = at(floor);
  const along =
    flights.length > 0
      ? ` with the ${flights.length} motion(s) in flight on other joints (${whenInFlightEnd(flights.map((f) => f.m))})`
      : "";
  if (slowest > cap) {
    const why =
      timing.kind === "independent" && at(floor / 2) >= slowest
        ? "the servos cannot move slower"
        : `even at limits.min_speed ${floor} it would move at ${apart(slowest, cap).value} m/s`;
    return refuse(`cannot be slowed enough: ${why}${along}`, requested);
  }
  let lo = floor,
    hi = input.speed;
  for (let i = 0; i < 50 && hi - lo > 1e-9 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (at(mid) <= cap) lo = mid;
    else hi = mid;
  }
  // Just under the bisected speed, so its float32 on the wire cannot round it back over the limit.
  const speed = Math.max(floor, lo * (1 - 1e-6));
  return { ok: true, speed, toolMps: at(speed), requestedMps: requested };
}

/** The bound on the tool's speed as a function of the new motion's speed fraction (its geometry computed once). */
function toolSpeedBound(
  kin: ArmKinematics,
  q0: Float64Array,
  targets: Readonly<Record<string, number>>,
  pose: Readonly<Record<string, number>>,
  flights: readonly { readonly m: InFlightMotion; readonly joints: readonly string[] }[],
  timing: MotionTiming,
  actuators: ReadonlyMap<string, Actuator>,
): (speed: number) => number {
  const chain = kin.chain;
  const dof = chain.dof;
  const delta = new Float64Array(dof);
  for (const [k, n] of kin.jointNames.entries())
    if (targets[n] !== undefined) delta[k] = (targets[n] ?? 0) - (q0[k] ?? 0);
  const moving = kin.jointNames.filter((n) => targets[n] !== undefined);
  const oneTimeLaw =
    timing.kind === "synchronized_trapezoid" &&
    flights.length === 0 &&
    timing.groups.some((g) => moving.every((n) => g.includes(n)));
  if (oneTimeLaw) {
    const along = maxTipRateAlongPath(kin, q0, delta);
    return (speed) => along * (axisPeaks(timing, targets, pose, speed, actuators).pathRate ?? Infinity);
  }
  // The box of joint values: the new motion's segment and each in-flight motion's, whole.
  const centre = Float64Array.from(q0);
  const half = new Float64Array(dof);
  for (let k = 0; k < dof; k++) {
    centre[k] = (q0[k] ?? 0) + (delta[k] ?? 0) / 2;
    half[k] = Math.abs(delta[k] ?? 0) / 2;
  }
  for (const { m, joints } of flights) {
    for (const n of joints) {
      const k = kin.jointNames.indexOf(n);
      const a = m.from[n] ?? m.to[n] ?? 0,
        b = m.to[n] ?? 0;
      centre[k] = (a + b) / 2;
      half[k] = Math.abs(b - a) / 2;
    }
  }
  const coefficient = tipLeverBounds(kin, centre, half);
  // Motions in flight move at the speeds they were sent with (their peaks, or each axis's max_velocity if unknown).
  let flying = 0;
  for (const { m, joints } of flights) {
    for (const n of joints)
      flying +=
        (coefficient[kin.jointNames.indexOf(n)] ?? 0) * (m.peakVelocity?.[n] ?? actuators.get(n)?.maxVelocity ?? 0);
  }
  return (speed) => {
    const peaks = axisPeaks(timing, targets, pose, speed, actuators).velocity;
    let v = flying;
    for (const [k, n] of kin.jointNames.entries())
      if (targets[n] !== undefined) v += (coefficient[k] ?? 0) * (peaks[n] ?? 0);
    return v;
  };
}

/**
 * Per joint k: how fast the tool moves per rad/s of joint k (per m/s of a
 * prismatic one), anywhere in the box centre ± half of joint values. For a
 * revolute joint that is the tool's distance from its axis, at most its
 * distance from the joint's origin: that distance depends only on the joints
 * downstream, each of which can change it by at most its own reach to the
 * tool per radian — so its value at the centre plus Σ_j>k reach_j × half_j,
 * and never more than the chain's offsets allow.
 */
function tipLeverBounds(kin: ArmKinematics, centre: Float64Array, half: Float64Array): Float64Array {
  const chain = kin.chain;
  const dof = chain.dof;
  const reach = tipReaches(kin);
  chain.kernel.forward(centre);
  const tip = chain.kernel.tip,
    o = chain.kernel.jointOrigin;
  const out = new Float64Array(dof);
  for (let k = 0; k < dof; k++) {
    if (chain.variables[k]?.type === "prismatic") {
      out[k] = 1;
      continue;
    }
    let grow = 0;
    for (let j = k + 1; j < dof; j++) grow += (reach[j] ?? 0) * (half[j] ?? 0);
    const here = Math.hypot(
      (tip[3] ?? 0) - (o[3 * k] ?? 0),
      (tip[7] ?? 0) - (o[3 * k + 1] ?? 0),
      (tip[11] ?? 0) - (o[3 * k + 2] ?? 0),
    );
    out[k] = Math.min(reach[k] ?? Infinity, here + grow);
  }
  return out;
}

/** Per joint: the most the tool can be from its origin in any configuration (the chain's offsets), 1 for a prismatic joint. */
function tipReaches(kin: ArmKinematics): Float64Array {
  const chain = kin.chain;
  const tip = kin.bodies.framePoints.find((f) => f.link === chain.tipLink);
  const tipRef = tip?.ref ?? chain.dof - 1;
  const tipOffset = tip ? Math.hypot(...tip.offset) : 0;
  return Float64Array.from({ length: chain.dof }, (_, k) =>
    chain.variables[k]?.type === "prismatic" ? 1 : k <= tipRef ? chain.originDistanceBound(k, tipRef) + tipOffset : 0,
  );
}

/**
 * The largest |dp/ds| of the tool along the straight joint-space path
 * q0 + s·Δq: sampled, plus the most it can exceed the samples between them.
 * |d²p/ds²| ≤ 3·W·S (W = Σ|Δq_k|, S = Σ reach_k·|Δq_k|: the axes turn
 * with the joints upstream and the lever arms change with both), so between
 * samples h apart it exceeds the larger neighbour by at most 3WS·h/2.
 */
function maxTipRateAlongPath(kin: ArmKinematics, q0: Float64Array, delta: Float64Array): number {
  const chain = kin.chain;
  const dof = chain.dof;
  const reach = tipReaches(kin);
  let W = 0,
    S = 0;
  for (let k = 0; k < dof; k++) {
    W += Math.abs(delta[k] ?? 0);
    S += (reach[k] ?? 0) * Math.abs(delta[k] ?? 0);
  }
  const L = 3 * W * S;
  const J = new Float64Array(3 * dof);
  const q = new Float64Array(dof);
  let n = 32,
    best = 0;
  for (;;) {
    best = 0;
    for (let i = 0; i <= n; i++) {
      for (let k = 0; k < dof; k++) q[k] = (q0[k] ?? 0) + (i / n) * (delta[k] ?? 0);
      chain.kernel.forward(q);
      chain.kernel.jacobian(J, 3, 0);
      let vx = 0,
        vy = 0,
        vz = 0;
      for (let k = 0; k < dof; k++) {
        vx += (J[k] ?? 0) * (delta[k] ?? 0);
        vy += (J[dof + k] ?? 0) * (delta[k] ?? 0);
        vz += (J[2 * dof + k] ?? 0) * (delta[k] ?? 0);
      }
      best = Math.max(best, Math.hypot(vx, vy, vz));
    }
    // Refine until the part between samples is at most 2 % of the answer (or the samples are 1/4096 apart).
    if (L / (2 * n) <= 0.02 * best || n >= 4096) return best + L / (2 * n);
    n *= 2;
  }
}
