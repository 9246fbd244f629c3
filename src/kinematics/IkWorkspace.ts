import type { KinematicChain } from "./KinematicChain.js";
import type { ChainKernel } from "./ChainKernel.js";
import type { IkTarget } from "./IkTarget.js";

/**
 * Metres per radian when position and orientation errors share one norm: a
 * rotation error of 1 rad counts like 0.2 m of position error, about the
 * lever arm of a small arm's wrist, so neither term swamps the other.
 */
export const ROTATION_WEIGHT = 0.2;
/** Sugihara's bias w̄ (m²): keeps the damped system positive definite at zero error and a singular J. */
const DAMPING_BIAS = 1e-6;
/** A start whose error has not fallen below this share of its value STALL_WINDOW steps ago is abandoned. */
const STALL_RATIO = 0.5;
const STALL_WINDOW = 3;
/** Largest joint step (rad or m) per iteration: the linearisation holds over about this much. */
const MAX_JOINT_STEP = 0.6;

export interface Descent {
  readonly converged: boolean;
  readonly position: number;
  readonly rotation: number;
  readonly score: number;
}

/**
 * The IK solver's state for one chain: every buffer one descent needs,
 * allocated once, so an iteration allocates nothing. Used synchronously by
 * one solve at a time (see solveIk's cache).
 */
export class IkWorkspace {
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** The last descent's joints (the answer when it converged). */
  readonly q: Float64Array;
  readonly #kernel: ChainKernel;
  readonly #dof: number;
  readonly #trial: Float64Array;
  readonly #dq: Float64Array;
  readonly #jacobian: Float64Array;
  readonly #hessian: Float64Array;
  readonly #damped: Float64Array;
  readonly #gradient: Float64Array;
  readonly #rhs: Float64Array;
  readonly #error = new Float64Array(6);
  readonly #trialE = new Float64Array(6);
  readonly #pinned: Uint8Array;
  readonly #targetP = new Float64Array(3);
  /** The target rotation, row-major 3×3; unused for a position-only solve. */
  readonly #targetR = new Float64Array(9);
  #rows: 3 | 6 = 3;
  // The last errorOf's norms (kept in fields: returning an object would allocate per iteration).
  #pos = 0;
  #rot = 0;

  constructor(chain: KinematicChain) {
    const n = chain.dof;
    this.#dof = n;
    this.#kernel = chain.kernel;
    this.lower = Float64Array.from(chain.variables, (v) => (Number.isFinite(v.lower) ? v.lower : -Math.PI));
    this.upper = Float64Array.from(chain.variables, (v) => (Number.isFinite(v.upper) ? v.upper : Math.PI));
    this.q = new Float64Array(n);
    this.#trial = new Float64Array(n);
    this.#dq = new Float64Array(n);
    this.#jacobian = new Float64Array(6 * n);
    this.#hessian = new Float64Array(n * n);
    this.#damped = new Float64Array(n * n);
    this.#gradient = new Float64Array(n);
    this.#rhs = new Float64Array(n);
    this.#pinned = new Uint8Array(n);
  }

  clampJoint(k: number, v: number): number {
    const lo = this.lower[k] ?? -Infinity,
      hi = this.upper[k] ?? Infinity;
    return v < lo ? lo : v > hi ? hi : v;
  }

  setTarget(target: IkTarget): void {
    this.#targetP.set(target.position);
    const o = target.orientation;
    this.#rows = o ? 6 : 3;
    if (o) for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) this.#targetR[3 * r + c] = o[4 * c + r] ?? 0;
  }

  /** One local descent from `seed`; leaves its joints in `q`. */
  descend(seed: Float64Array, maxIterations: number, posTol: number, rotTol: number): Descent {
    const n = this.#dof,
      kernel = this.#kernel,
      q = this.q,
      trial = this.#trial,
      dq = this.#dq,
      e = this.#error,
      rows = this.#rows;
    for (let k = 0; k < n; k++) q[k] = this.clampJoint(k, seed[k] ?? 0);
    kernel.forward(q);
    let score = this.#errorOf(e);
    let pos = this.#pos,
      rot = this.#rot;
    let mu = 1;
    let checkpoint = score;
    for (let it = 0; it < maxIterations; it++) {
      if (pos <= posTol && rot <= rotTol) break;
      if (it > 0 && it % STALL_WINDOW === 0) {
        if (score > checkpoint * STALL_RATIO) break;
        checkpoint = score;
      }
      kernel.jacobian(this.#jacobian, rows, ROTATION_WEIGHT);
      this.#normalEquations();
      let improved = false;
      for (let tries = 0; tries < 6 && !improved; tries++) {
        const damping = mu * 0.5 * score + DAMPING_BIAS;
        this.#stepWithinLimits(damping);
        let biggest = 0;
        for (let k = 0; k < n; k++) biggest = Math.max(biggest, Math.abs(dq[k] ?? 0));
        const shrink = biggest > MAX_JOINT_STEP ? MAX_JOINT_STEP / biggest : 1;
        for (let k = 0; k < n; k++) trial[k] = this.clampJoint(k, (q[k] ?? 0) + (dq[k] ?? 0) * shrink);
        kernel.forward(trial);
        const trialScore = this.#errorOf(this.#trialE);
        if (trialScore < score) {
          q.set(trial);
          e.set(this.#trialE);
          score = trialScore;
          pos = this.#pos;
          rot = this.#rot;
          mu = Math.max(mu * 0.5, 1e-3);
          improved = true;
        } else {
          mu *= 4;
        }
      }
      // No damping found a lower error: a local minimum (or a limit). The kernel now
      // holds a rejected trial, but the descent ends here, so nothing reads it.
      if (!improved) break;
    }
    return { converged: pos <= posTol && rot <= rotTol, position: pos, rotation: rot, score };
  }

  /** H = JᵀJ, g = Jᵀe from the current Jacobian and error (n×n and n: at most 6×6). */
  #normalEquations(): void {
    const n = this.#dof,
      rows = this.#rows,
      J = this.#jacobian,
      H = this.#hessian,
      g = this.#gradient,
      e = this.#error;
    for (let a = 0; a < n; a++) {
      let s = 0;
      for (let r = 0; r < rows; r++) s += (J[r * n + a] ?? 0) * (e[r] ?? 0);
      g[a] = s;
      for (let b = 0; b <= a; b++) {
        let h = 0;
        for (let r = 0; r < rows; r++) h += (J[r * n + a] ?? 0) * (J[r * n + b] ?? 0);
        H[a * n + b] = h;
        H[b * n + a] = h;
      }
    }
  }

  /** The damped step in dq; joints at a limit that the step pushes further out leave the system, which is solved again. */
  #stepWithinLimits(damping: number): void {
    const n = this.#dof,
      q = this.q,
      dq = this.#dq,
      pinned = this.#pinned;
    pinned.fill(0);
    this.#solve(damping);
    for (let pass = 0; pass < n; pass++) {
      let newlyPinned = false;
      for (let k = 0; k < n; k++) {
        if (pinned[k] === 1) continue;
        const v = q[k] ?? 0,
          d = dq[k] ?? 0;
        if ((d < 0 && v <= (this.lower[k] ?? -Infinity) + 1e-9) || (d > 0 && v >= (this.upper[k] ?? Infinity) - 1e-9)) {
          pinned[k] = 1;
          newlyPinned = true;
        }
      }
      if (!newlyPinned) break;
      this.#solve(damping);
    }
  }

  /** dq = (H + d·I)⁻¹ g over the free joints (pinned ones get 0), by Cholesky on the preallocated A. */
  #solve(d: number): void {
    const n = this.#dof,
      A = this.#damped,
      H = this.#hessian,
      g = this.#gradient,
      y = this.#rhs,
      dq = this.#dq,
      pinned = this.#pinned;
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++)
        A[a * n + b] = pinned[a] === 1 || pinned[b] === 1 ? (a === b ? 1 : 0) : (H[a * n + b] ?? 0);
      if (pinned[a] === 0) A[a * n + a] = (A[a * n + a] ?? 0) + d;
      y[a] = pinned[a] === 1 ? 0 : (g[a] ?? 0);
    }
    for (let j = 0; j < n; j++) {
      let s = A[j * n + j] ?? 0;
      for (let k = 0; k < j; k++) s -= (A[j * n + k] ?? 0) ** 2;
      const ljj = Math.sqrt(s > 1e-300 ? s : 1e-300);
      A[j * n + j] = ljj;
      for (let i = j + 1; i < n; i++) {
        let t = A[i * n + j] ?? 0;
        for (let k = 0; k < j; k++) t -= (A[i * n + k] ?? 0) * (A[j * n + k] ?? 0);
        A[i * n + j] = t / ljj;
      }
    }
    for (let i = 0; i < n; i++) {
      let s = y[i] ?? 0;
      for (let k = 0; k < i; k++) s -= (A[i * n + k] ?? 0) * (y[k] ?? 0);
      y[i] = s / (A[i * n + i] ?? 1);
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i] ?? 0;
      for (let k = i + 1; k < n; k++) s -= (A[k * n + i] ?? 0) * (y[k] ?? 0);
      y[i] = s / (A[i * n + i] ?? 1);
    }
    for (let k = 0; k < n; k++) dq[k] = pinned[k] === 1 ? 0 : (y[k] ?? 0);
  }

  /**
   * The error twist at the kernel's tip (target − tip; rotation rows as
   * weighted axis·angle of R_target·R_tipᵀ, in the base frame) into `e`;
   * returns |e|² and leaves the norms in #pos/#rot.
   */
  #errorOf(e: Float64Array): number {
    const tip = this.#kernel.tip,
      t = this.#targetP;
    const ex = (t[0] ?? 0) - (tip[3] ?? 0),
      ey = (t[1] ?? 0) - (tip[7] ?? 0),
      ez = (t[2] ?? 0) - (tip[11] ?? 0);
    e[0] = ex;
    e[1] = ey;
    e[2] = ez;
    const p2 = ex * ex + ey * ey + ez * ez;
    this.#pos = Math.sqrt(p2);
    if (this.#rows === 3) {
      this.#rot = 0;
      return p2;
    }
    // R = R_target · R_tipᵀ (row-major): R[r][c] = Σ_k T[r][k] · tip[c][k].
    const T = this.#targetR;
    const m = (r: number, c: number): number =>
      (T[3 * r] ?? 0) * (tip[4 * c] ?? 0) +
      (T[3 * r + 1] ?? 0) * (tip[4 * c + 1] ?? 0) +
      (T[3 * r + 2] ?? 0) * (tip[4 * c + 2] ?? 0);
    const r00 = m(0, 0),
      r11 = m(1, 1),
      r22 = m(2, 2);
    const r21 = m(2, 1),
      r12 = m(1, 2),
      r02 = m(0, 2),
      r20 = m(2, 0),
      r10 = m(1, 0),
      r01 = m(0, 1);
    // Quaternion of R (Shepperd: divide by the largest of w, x, y, z, so it stays exact near π).
    const tr = r00 + r11 + r22;
    let w: number, x: number, y: number, z: number;
    if (tr > 0) {
      const s = 2 * Math.sqrt(tr + 1);
      w = 0.25 * s;
      x = (r21 - r12) / s;
      y = (r02 - r20) / s;
      z = (r10 - r01) / s;
    } else if (r00 > r11 && r00 > r22) {
      const s = 2 * Math.sqrt(1 + r00 - r11 - r22);
      w = (r21 - r12) / s;
      x = 0.25 * s;
      y = (r01 + r10) / s;
      z = (r02 + r20) / s;
    } else if (r11 > r22) {
      const s = 2 * Math.sqrt(1 + r11 - r00 - r22);
      w = (r02 - r20) / s;
      x = (r01 + r10) / s;
      y = 0.25 * s;
      z = (r12 + r21) / s;
    } else {
      const s = 2 * Math.sqrt(1 + r22 - r00 - r11);
      w = (r10 - r01) / s;
      x = (r02 + r20) / s;
      y = (r12 + r21) / s;
      z = 0.25 * s;
    }
    if (w < 0) {
      w = -w;
      x = -x;
      y = -y;
      z = -z;
    }
    const sn = Math.hypot(x, y, z);
    const angle = 2 * Math.atan2(sn, w);
    const k = sn > 1e-12 ? (ROTATION_WEIGHT * angle) / sn : 2 * ROTATION_WEIGHT;
    e[3] = x * k;
    e[4] = y * k;
    e[5] = z * k;
    this.#rot = angle;
    return p2 + (ROTATION_WEIGHT * angle) ** 2;
  }
}
