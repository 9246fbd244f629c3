import { STRIDE } from "./EnvelopeItems.js";
import type { EnvelopeModel } from "./EnvelopeModel.js";

export interface PathToCertify {
  /** Joint vector at s = 0 (joints of motions in flight at the centre of their box). */
  readonly start: Float64Array;
  /** The new motion's joint change over the path (0 on joints it does not move): q(s) = start + s·delta. */
  readonly delta: Float64Array;
  /** Per test: how fast its clearance can change per unit s (Σ_k rate(test, k)·|delta_k|). */
  readonly rates: Float64Array;
  /** Per test: how much the motions in flight can change its clearance anywhere in their box. */
  readonly bounds: Float64Array;
  /** The clearance every test must keep beyond its bound (the sampling margin). */
  readonly margin: number;
  /** FK evaluations allowed before the path counts as unverifiable. */
  readonly budget: number;
  /** Which tests to certify (1) on this walk; the others are not looked at. */
  readonly active: Uint8Array;
  /**
   * A test whose bound is above this and that cannot be certified is set
   * aside (`deferred`) rather than failed: a smaller box of in-flight
   * progress may certify it. Infinity: every failure is final.
   */
  readonly deferAbove: number;
}

const HALF = 0.5;

export type CertifiedPath =
  | {
      readonly ok: true;
      readonly evaluations: number;
      readonly pairChecks: number;
      readonly deferred: readonly number[];
    }
  | {
      readonly ok: false;
      readonly reason: "too_close";
      readonly test: number;
      readonly s: number;
      readonly clearance: number;
      readonly evaluations: number;
      readonly pairChecks: number;
    }
  | { readonly ok: false; readonly reason: "budget"; readonly evaluations: number; readonly pairChecks: number };

/**
 * Certifies one straight joint-space path, s from 0 to 1, by conservative
 * advancement: a test whose clearance at s is c, and can shrink at most
 * `rate` per unit s (and `bound` more through the motions in flight), stays
 * positive up to s + (c − bound) / rate and need not be looked at again
 * before then. So each test is evaluated only where it might be lost: a
 * pair of links a metre apart once per path, a volume skimming the floor
 * every few millimetres of its travel. At each evaluation the clearance must
 * be at least `margin` + bound — then the path is sound between evaluations
 * too — or the path fails there: the first place, from s = 0, where the
 * envelope could be lost. Every test is evaluated at s = 0.
 *
 * Allocation-free per call beyond the first: the buffers are the model's.
 */
export function certifyPath(model: EnvelopeModel, path: PathToCertify, scratch: WalkScratch): CertifiedPath {
  const tests = model.tests;
  const kernel = model.kin.chain.kernel;
  const items = model.items;
  const { start, delta, rates, bounds, margin, active } = path;
  const deferred: number[] = [];
  const dof = start.length;
  const next = scratch.next,
    last = scratch.last,
    placedAt = scratch.placedAt,
    q = scratch.q,
    stepFrom = scratch.stepFrom;
  next.fill(0);
  last.fill(0);
  placedAt.fill(-1);
  let evaluations = 0,
    pairChecks = 0;
  let s = 0;
  for (;;) {
    for (let k = 0; k < dof; k++) q[k] = (start[k] ?? 0) + s * (delta[k] ?? 0);
    kernel.forward(q);
    const frames = kernel.jointFrames;
    const step = evaluations++;
    let nextS = Infinity;
    for (let t = 0; t < tests.length; t++) {
      if (active[t] !== 1) continue;
      let due = next[t] ?? 0;
      // Due now — or past half of its certified stretch: evaluating it on this FK, which is paid for
      // anyway, spares an FK of its own soon after.
      if (due <= s || due - s < HALF * (due - (last[t] ?? 0))) {
        last[t] = s;
        const test = tests[t];
        if (!test) continue;
        if ((placedAt[test.item] ?? -1) !== step) {
          items.place(test.item, frames);
          placedAt[test.item] = step;
        }
        if (test.kind === "pair") {
          pairChecks++;
          if ((placedAt[test.other] ?? -1) !== step) {
            items.place(test.other, frames);
            placedAt[test.other] = step;
          }
        } else if (test.kind === "step" && step === 0) {
          const o = STRIDE * test.item;
          stepFrom[0] = items.world[o] ?? 0;
          stepFrom[1] = items.world[o + 1] ?? 0;
          stepFrom[2] = items.world[o + 2] ?? 0;
        }
        const c = model.clearance(t, stepFrom);
        const bound = bounds[t] ?? 0;
        if (!(c >= margin + bound)) {
          if (!(bound > path.deferAbove))
            return { ok: false, reason: "too_close", test: t, s, clearance: c, evaluations, pairChecks };
          active[t] = 0;
          deferred.push(t);
          continue;
        }
        const rate = rates[t] ?? 0;
        due = rate > 0 ? s + (c - bound) / rate : Infinity;
        next[t] = due;
      }
      if (due < nextS) nextS = due;
    }
    if (nextS > 1) return { ok: true, evaluations, pairChecks, deferred };
    if (evaluations >= path.budget) return { ok: false, reason: "budget", evaluations, pairChecks };
    s = nextS;
  }
}

/** Buffers one walk needs, sized for a model; reused across walks of the same check. */
export interface WalkScratch {
  readonly next: Float64Array;
  /** Where each test was last evaluated. */
  readonly last: Float64Array;
  readonly placedAt: Int32Array;
  readonly q: Float64Array;
  readonly stepFrom: Float64Array;
}

/** One set per model, reused: a check runs synchronously from start to end, so no two walks share it at once. */
export function walkScratchFor(model: EnvelopeModel): WalkScratch {
  let scratch = scratches.get(model);
  if (!scratch) {
    scratch = {
      next: new Float64Array(model.tests.length),
      last: new Float64Array(model.tests.length),
      placedAt: new Int32Array(model.items.items.length),
      q: new Float64Array(model.kin.chain.dof),
      stepFrom: new Float64Array(3),
    };
    scratches.set(model, scratch);
  }
  return scratch;
}

const scratches = new WeakMap<EnvelopeModel, WalkScratch>();
