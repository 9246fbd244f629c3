import { mat4, quat } from "gl-matrix";
import type { KinematicChain } from "./KinematicChain.js";
import { identity, positionOf, type Transform } from "./rigidTransform.js";
import { mulberry32 } from "../random/mulberry32.js";

/** What the solver must reach: a position, and for a full-pose solve the tip's orientation too. */
export interface IkTarget {
  readonly position: readonly [number, number, number];
  /** A transform whose rotation is the wanted tip orientation; omit for a position-only solve. */
  readonly orientation?: Transform | undefined;
}

export interface IkOptions {
  /** Converged when the tip is this close to the target position (m). Default 0.1 mm. */
  readonly positionTolerance?: number;
  /** Converged when the tip's rotation is this close to the target's (rad). Default 1 mrad. */
  readonly rotationTolerance?: number;
  /** Iterations per start (a start that converges does so in ~15–25). Default 40. */
  readonly maxIterations?: number;
  /** Extra starts tried when the start from the current joints fails. Default 300 (a stalled start is dropped after 8 steps, so most cost a few). */
  readonly seeds?: number;
}

export type IkResult =
  | { readonly ok: true; readonly q: Float64Array; readonly positionError: number; readonly rotationError: number; readonly starts: number }
  | {
      readonly ok: false;
      /** The best joint vector found, and where it puts the tip: the closest reachable point the solver found. */
      readonly q: Float64Array;
      readonly closest: readonly [number, number, number];
      readonly positionError: number;
      readonly rotationError: number;
      readonly starts: number;
    };

/**
 * Inverse kinematics by damped least squares (Levenberg–Marquardt damping):
 * Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e, with λ shrunk after a step that lowers the error
 * and grown after one that does not, so it behaves like Gauss–Newton far from
 * singularities and stays bounded near them. Joint limits are enforced by
 * clamping every step into [lower, upper].
 *
 * It starts from the current joints: a local solver started there converges
 * to the solution on the current branch, the one closest to where the arm is.
 * Only when that fails are further starts tried: random perturbations of the
 * current joints, small first and then across the whole range (a fixed
 * pseudo-random sequence, so results are reproducible); the first that
 * converges wins, which by that ordering is the one nearest the current joints
 * the search found. The error is a rotation-weighted twist and the active set
 * drops joints pinned at a limit, so the free joints keep working.
 *
 * Position-only when `target.orientation` is omitted (arms with fewer than six
 * axes cannot choose an orientation).
 */
export function solveIk(chain: KinematicChain, target: IkTarget, current: ArrayLike<number>, options: IkOptions = {}): IkResult {
  const n = chain.dof;
  const posTol = options.positionTolerance ?? 1e-4;
  const rotTol = options.rotationTolerance ?? 1e-3;
  const maxIterations = options.maxIterations ?? 40;
  const seedCount = options.seeds ?? 300;
  const start = new Float64Array(n);
  for (let k = 0; k < n; k++) start[k] = clamp(current[k] ?? 0, chain.variables[k]?.lower ?? -Infinity, chain.variables[k]?.upper ?? Infinity);

  const first = descend(chain, target, start, maxIterations, posTol, rotTol);
  if (first.converged) return { ok: true, q: first.q, positionError: first.positionError, rotationError: first.rotationError, starts: 1 };

  // Further starts: around the current joints first, widening to the whole range over
  // WIDEN_OVER starts, so a solution near where the arm is gets found first when there
  // is one, and the remaining starts search everywhere.
  let best = first;
  const random = mulberry32(0x9e3779b9);
  for (let s = 1; s <= seedCount; s++) {
    const spread = Math.min(1, s / WIDEN_OVER);
    const seed = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const v = chain.variables[k];
      const lo = Number.isFinite(v?.lower) ? (v?.lower ?? -Math.PI) : -Math.PI;
      const hi = Number.isFinite(v?.upper) ? (v?.upper ?? Math.PI) : Math.PI;
      seed[k] = clamp((start[k] ?? 0) + (random() - 0.5) * spread * (hi - lo), lo, hi);
    }
    const a = descend(chain, target, seed, maxIterations, posTol, rotTol);
    if (a.converged) return { ok: true, q: a.q, positionError: a.positionError, rotationError: a.rotationError, starts: s + 1 };
    if (a.score < best.score) best = a;
  }
  return { ok: false, q: best.q, closest: positionOf(chain.tip(best.q)), positionError: best.positionError, rotationError: best.rotationError, starts: seedCount + 1 };
}

interface Attempt {
  readonly converged: boolean;
  readonly q: Float64Array;
  readonly positionError: number;
  readonly rotationError: number;
  readonly score: number;
}

/**
 * Metres per radian when position and orientation errors share one norm: a
 * rotation error of 1 rad counts like 0.2 m of position error, about the
 * lever arm of a small arm's wrist, so neither term swamps the other.
 */
const ROTATION_WEIGHT = 0.2;
/** Largest (weighted) error a single step aims to remove: keeps steps where the linearisation holds. */
const MAX_STEP_ERROR = 0.2;
const IDENTITY = identity();
const STALL_WINDOW = 8;
const STALL_RATIO = 0.5;
/** Starts over which the random perturbation widens from the current joints to the whole range. */
const WIDEN_OVER = 20;

function descend(chain: KinematicChain, target: IkTarget, q0: Float64Array, maxIterations: number, posTol: number, rotTol: number): Attempt {
  const n = chain.dof;
  const full = target.orientation !== undefined;
  const m = full ? 6 : 3;
  const q = Float64Array.from(q0);
  const trial = new Float64Array(n);
  const e = new Float64Array(6);
  const trialE = new Float64Array(6);
  const J = new Float64Array(m * n);
  const rhs = new Float64Array(m);
  const dq = new Float64Array(n);
  const work = new DlsWorkspace(m, n);
  const scratch = new Float64Array(4);
  const pinned = new Uint8Array(n);
  const targetQ = target.orientation ? (mat4.getRotation(new Float64Array(4), target.orientation) as Float64Array) : undefined;
  // Two frame buffers, swapped when a trial step is accepted: no allocation per iteration.
  let frames = chain.frames(q);
  let spare = chain.frames(q);
  let err = errorOf(frames.links[frames.links.length - 1] ?? IDENTITY, target, targetQ, e, scratch);
  let lambda = 1e-3;
  let checkpoint = err.score;
  for (let it = 0; it < maxIterations; it++) {
    if (err.position <= posTol && err.rotation <= rotTol) break;
    // A start that has not halved its error in the last STALL_WINDOW steps is in a local
    // minimum (or crawling along a limit): give it up for the next start instead.
    if (it > 0 && it % STALL_WINDOW === 0) {
      if (err.score > checkpoint * STALL_RATIO) break;
      checkpoint = err.score;
    }
    jacobian(chain, frames, J, full);
    // Cap the error each step aims at: a far target is approached in straight-line chunks.
    const scale = err.score > MAX_STEP_ERROR * MAX_STEP_ERROR ? MAX_STEP_ERROR / Math.sqrt(err.score) : 1;
    for (let r = 0; r < m; r++) rhs[r] = (e[r] ?? 0) * scale;
    let improved = false;
    for (let tries = 0; tries < 8 && !improved; tries++) {
      // Joints pinned at a limit that the step pushes further out are taken out of the
      // Jacobian and the step is solved again, so the others do the work (an active set):
      // clamping alone would stall at the limit.
      pinned.fill(0);
      work.step(J, rhs, lambda, pinned, dq);
      for (let pass = 0; pass < n; pass++) {
        let newlyPinned = false;
        for (let k = 0; k < n; k++) {
          const v = chain.variables[k];
          const next = (q[k] ?? 0) + (dq[k] ?? 0);
          if (pinned[k] === 0 && ((v !== undefined && next < v.lower && (q[k] ?? 0) <= v.lower + 1e-9) || (v !== undefined && next > v.upper && (q[k] ?? 0) >= v.upper - 1e-9))) {
            pinned[k] = 1;
            newlyPinned = true;
          }
        }
        if (!newlyPinned) break;
        work.step(J, rhs, lambda, pinned, dq);
      }
      for (let k = 0; k < n; k++) {
        const v = chain.variables[k];
        trial[k] = clamp((q[k] ?? 0) + (dq[k] ?? 0), v?.lower ?? -Infinity, v?.upper ?? Infinity);
      }
      spare = chain.frames(trial, spare);
      const trialErr = errorOf(spare.links[spare.links.length - 1] ?? IDENTITY, target, targetQ, trialE, scratch);
      if (trialErr.score < err.score) {
        q.set(trial);
        e.set(trialE);
        [frames, spare] = [spare, frames];
        err = trialErr;
        lambda = Math.max(lambda * 0.3, 1e-6);
        improved = true;
      } else {
        lambda = Math.min(lambda * 5, 10);
      }
    }
    if (!improved) break;
  }
  return { converged: err.position <= posTol && err.rotation <= rotTol, q, positionError: err.position, rotationError: err.rotation, score: err.score };
}

/**
 * Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e over the joints not pinned at a limit (pinned
 * joints get 0). J Jᵀ + λ² I is at most 6×6 and symmetric positive definite,
 * so it is solved by an in-place Cholesky factorisation on preallocated
 * arrays: this runs a few hundred thousand times per second of IK, and a
 * general matrix library's per-call allocations cost more than the
 * arithmetic (ml-matrix measured ~4× slower per iteration here).
 */
class DlsWorkspace {
  readonly #m: number;
  readonly #n: number;
  readonly #A: Float64Array;
  readonly #y: Float64Array;

  constructor(m: number, n: number) {
    this.#m = m;
    this.#n = n;
    this.#A = new Float64Array(m * m);
    this.#y = new Float64Array(m);
  }

  /** J is row-major m×n. */
  step(J: Float64Array, e: Float64Array, lambda: number, pinned: Uint8Array, out: Float64Array): void {
    const m = this.#m, n = this.#n, A = this.#A, y = this.#y;
    for (let r = 0; r < m; r++) {
      for (let c = 0; c <= r; c++) {
        let sum = 0;
        for (let k = 0; k < n; k++) if (pinned[k] === 0) sum += (J[r * n + k] ?? 0) * (J[c * n + k] ?? 0);
        A[r * m + c] = sum;
      }
      A[r * m + r] = (A[r * m + r] ?? 0) + lambda * lambda;
    }
    // Cholesky: A = L Lᵀ, L stored in the lower triangle of A.
    for (let j = 0; j < m; j++) {
      let d = A[j * m + j] ?? 0;
      for (let k = 0; k < j; k++) d -= (A[j * m + k] ?? 0) ** 2;
      const ljj = Math.sqrt(Math.max(d, 1e-300));
      A[j * m + j] = ljj;
      for (let i = j + 1; i < m; i++) {
        let s = A[i * m + j] ?? 0;
        for (let k = 0; k < j; k++) s -= (A[i * m + k] ?? 0) * (A[j * m + k] ?? 0);
        A[i * m + j] = s / ljj;
      }
    }
    // Solve L z = e, then Lᵀ y = z.
    for (let i = 0; i < m; i++) {
      let s = e[i] ?? 0;
      for (let k = 0; k < i; k++) s -= (A[i * m + k] ?? 0) * (y[k] ?? 0);
      y[i] = s / (A[i * m + i] ?? 1);
    }
    for (let i = m - 1; i >= 0; i--) {
      let s = y[i] ?? 0;
      for (let k = i + 1; k < m; k++) s -= (A[k * m + i] ?? 0) * (y[k] ?? 0);
      y[i] = s / (A[i * m + i] ?? 1);
    }
    for (let k = 0; k < n; k++) {
      let s = 0;
      if (pinned[k] === 0) for (let r = 0; r < m; r++) s += (J[r * n + k] ?? 0) * (y[r] ?? 0);
      out[k] = s;
    }
  }
}

/** Fills `e` with the error twist (target − tip; rotation rows weighted) and returns its norms. */
function errorOf(tip: Transform, target: IkTarget, targetQ: Float64Array | undefined, e: Float64Array, tipQ: Float64Array): { position: number; rotation: number; score: number } {
  e[0] = target.position[0] - (tip[12] ?? 0);
  e[1] = target.position[1] - (tip[13] ?? 0);
  e[2] = target.position[2] - (tip[14] ?? 0);
  const p2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  let rotation = 0;
  if (targetQ) {
    mat4.getRotation(tipQ, tip);
    // q_err = q_target · q_tip⁻¹: the rotation still to do, in the base frame, as axis·angle.
    quat.conjugate(tipQ, tipQ);
    quat.multiply(tipQ, targetQ, tipQ);
    if ((tipQ[3] ?? 1) < 0) quat.scale(tipQ, tipQ, -1);
    const s = Math.hypot(tipQ[0] ?? 0, tipQ[1] ?? 0, tipQ[2] ?? 0);
    rotation = 2 * Math.atan2(s, tipQ[3] ?? 1);
    const k = s > 1e-12 ? (ROTATION_WEIGHT * rotation) / s : 2 * ROTATION_WEIGHT;
    e[3] = (tipQ[0] ?? 0) * k;
    e[4] = (tipQ[1] ?? 0) * k;
    e[5] = (tipQ[2] ?? 0) * k;
  }
  return { position: Math.sqrt(p2), rotation, score: p2 + (ROTATION_WEIGHT * rotation) ** 2 };
}

/** The geometric Jacobian of the tip position (rows 0–2) and, for a full pose, its rotation (rows 3–5). */
function jacobian(chain: KinematicChain, frames: ReturnType<KinematicChain["frames"]>, J: Float64Array, full: boolean): void {
  const n = chain.dof;
  const tip = frames.links[frames.links.length - 1];
  const tx = tip?.[12] ?? 0, ty = tip?.[13] ?? 0, tz = tip?.[14] ?? 0;
  for (let k = 0; k < chain.dof; k++) {
    const f = frames.jointFrames[k];
    if (!f) continue;
    const [ax, ay, az] = chain.axisOf(k);
    // The axis in the base frame: the joint frame's rotation applied to the local axis.
    const wx = (f[0] ?? 0) * ax + (f[4] ?? 0) * ay + (f[8] ?? 0) * az;
    const wy = (f[1] ?? 0) * ax + (f[5] ?? 0) * ay + (f[9] ?? 0) * az;
    const wz = (f[2] ?? 0) * ax + (f[6] ?? 0) * ay + (f[10] ?? 0) * az;
    if (chain.variables[k]?.type === "prismatic") {
      J[0 * n + k] = wx;
      J[1 * n + k] = wy;
      J[2 * n + k] = wz;
      if (full) for (let r = 3; r < 6; r++) J[r * n + k] = 0;
    } else {
      const rx = tx - (f[12] ?? 0), ry = ty - (f[13] ?? 0), rz = tz - (f[14] ?? 0);
      J[0 * n + k] = wy * rz - wz * ry;
      J[1 * n + k] = wz * rx - wx * rz;
      J[2 * n + k] = wx * ry - wy * rx;
      if (full) {
        J[3 * n + k] = ROTATION_WEIGHT * wx;
        J[4 * n + k] = ROTATION_WEIGHT * wy;
        J[5 * n + k] = ROTATION_WEIGHT * wz;
      }
    }
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

