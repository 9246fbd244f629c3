import type { KinematicChain } from "./KinematicChain.js";
import { positionOf } from "./rigidTransform.js";
import { mulberry32 } from "../random/mulberry32.js";
import { IkWorkspace } from "./IkWorkspace.js";
import type { IkTarget } from "./IkTarget.js";

export interface IkOptions {
  /** Converged when the tip is this close to the target position (m). Default 0.1 mm. */
  readonly positionTolerance?: number;
  /** Converged when the tip's rotation is this close to the target's (rad). Default 1 mrad. */
  readonly rotationTolerance?: number;
  /** Iterations per start (a start that converges does so in ~8–20). Default 60. */
  readonly maxIterations?: number;
  /** Extra starts tried when the start from the current joints fails. Default 400 (a stalled start is dropped within a few steps, so most cost little). */
  readonly seeds?: number;
  /**
   * An optional wall-clock budget (ms): the search stops at the first start past it. None by
   * default: the start count already bounds the work (400 starts are ~2–20 ms on this
   * machine), and a wall-clock cut would make the answer depend on how busy the machine is
   * (a descheduled process "runs out of time" on a target it would solve) — results would
   * no longer be reproducible.
   */
  readonly budgetMs?: number;
}

export type IkResult =
  | {
      readonly ok: true;
      readonly q: Float64Array;
      readonly positionError: number;
      readonly rotationError: number;
      readonly starts: number;
    }
  | {
      readonly ok: false;
      /** The best joint vector found, and where it puts the tip: the closest reachable point the solver found. */
      readonly q: Float64Array;
      readonly closest: readonly [number, number, number];
      readonly positionError: number;
      readonly rotationError: number;
      readonly starts: number;
    };

/** Starts (after the first) that perturb the current joints before the search goes uniform over the limits. */
const NEAR_STARTS = 4;
/** Their spread, as a fraction of each joint's range. */
const NEAR_SPREAD = 0.15;

const workspaces = new WeakMap<KinematicChain, IkWorkspace>();

/**
 * Inverse kinematics by damped least squares with Levenberg–Marquardt
 * damping scaled by the error (Sugihara, "Solvability-unconcerned inverse
 * kinematics by the Levenberg–Marquardt method", IEEE T-RO 27(5), 2011):
 * Δq = (JᵀJ + (μ·E + w̄) I)⁻¹ Jᵀe with E = ½|e|². Far from the target the
 * damping is large and the step is a short gradient step; near it the
 * damping vanishes and the step is Gauss–Newton, so it converges
 * quadratically and never blows up at a singularity. μ adapts: a step that
 * lowers the error is kept and μ shrinks; one that does not is retried with
 * μ grown. The Jacobian is the analytic (geometric) one from each joint's
 * base-frame axis and origin; FK and J run on preallocated arrays.
 *
 * Joint limits: every step is clamped into [lower, upper], and a joint at a
 * limit that the step pushes further out is dropped from the system (an
 * active set), so the free joints keep working instead of the whole step
 * stalling against the limit.
 *
 * It starts from the current joints: a local solver started there converges
 * to the solution on the current branch, the one closest to where the arm
 * is. Only when that fails are further starts tried — a few small
 * perturbations of the current joints, then uniform over the limits (a fixed
 * pseudo-random sequence, so results are reproducible) — and the first that
 * converges wins. A start that stops making progress is abandoned early; the
 * search ends at `seeds` starts or `budgetMs`, whichever comes first.
 *
 * Position-only when `target.orientation` is omitted (arms with fewer than six
 * axes cannot choose an orientation).
 */
export function solveIk(
  chain: KinematicChain,
  target: IkTarget,
  current: ArrayLike<number>,
  options: IkOptions = {},
): IkResult {
  let ws = workspaces.get(chain);
  if (!ws) {
    ws = new IkWorkspace(chain);
    workspaces.set(chain, ws);
  }
  const n = chain.dof;
  const posTol = options.positionTolerance ?? 1e-4;
  const rotTol = options.rotationTolerance ?? 1e-3;
  const maxIterations = options.maxIterations ?? 60;
  const seedCount = options.seeds ?? 400;
  const deadline = options.budgetMs === undefined ? Infinity : performance.now() + options.budgetMs;
  ws.setTarget(target);

  const start = new Float64Array(n);
  for (let k = 0; k < n; k++) start[k] = ws.clampJoint(k, current[k] ?? 0);
  const seed = new Float64Array(n);
  const best = new Float64Array(n);
  let bestScore = Infinity,
    bestPos = Infinity,
    bestRot = Infinity;
  const random = mulberry32(0x9e3779b9);
  let starts = 0;
  for (let s = 0; s <= seedCount; s++) {
    if (s === 0) {
      seed.set(start);
    } else {
      if (deadline !== Infinity && performance.now() > deadline) break;
      const spread = s <= NEAR_STARTS ? NEAR_SPREAD : 1;
      for (let k = 0; k < n; k++) {
        const lo = ws.lower[k] ?? -Math.PI,
          hi = ws.upper[k] ?? Math.PI;
        seed[k] =
          spread < 1
            ? ws.clampJoint(k, (start[k] ?? 0) + (random() - 0.5) * spread * (hi - lo))
            : lo + random() * (hi - lo);
      }
    }
    starts++;
    const a = ws.descend(seed, maxIterations, posTol, rotTol);
    if (a.converged)
      return { ok: true, q: Float64Array.from(ws.q), positionError: a.position, rotationError: a.rotation, starts };
    if (a.score < bestScore) {
      bestScore = a.score;
      bestPos = a.position;
      bestRot = a.rotation;
      best.set(ws.q);
    }
  }
  return {
    ok: false,
    q: best,
    closest: positionOf(chain.tip(best)),
    positionError: bestPos,
    rotationError: bestRot,
    starts,
  };
}
