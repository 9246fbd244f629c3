import type { ArmConfig } from "../config/ArmConfig.js";
import type { KeepOutZone } from "../config/envelopeConfig.js";
import { armKinematicsOf, type ArmKinematics } from "../kinematics/armKinematics.js";
import { identity, invert, type Transform } from "../kinematics/rigidTransform.js";
import { mulberry32 } from "../random/mulberry32.js";
import { BOX, EnvelopeItems, STRIDE } from "./EnvelopeItems.js";
import {
  boxBoxSeparation,
  boxExtentAlong,
  BOX_STRIDE,
  segmentOrientedBoxDistance,
  writeAxisAlignedBox,
} from "./geometry/OrientedBox.js";
import { segmentBoxDistance } from "./geometry/segmentBoxDistance.js";
import { segmentCylinderDistance } from "./geometry/segmentCylinderDistance.js";
import { segmentSegmentDistance } from "./geometry/segmentSegmentDistance.js";
import { boxAsCapsule } from "./geometry/boxAsCapsule.js";
import { clearanceRatesOf } from "./clearanceRates.js";
import type { Contact, EnvelopeTest } from "./EnvelopeTest.js";
import { MARGIN_M } from "./margins.js";

const AXES = ["x", "y", "z"] as const;

/**
 * The envelope of one arm config, compiled once: its items (link volumes
 * and moving link frames), the tests between them and the workspace, and
 * for every test and joint k a bound on how fast joint k can change the
 * test's clearance (metres per radian, or per metre of a prismatic joint):
 * `rate(test, k)`. A rotation of joint k by Δ moves a point at most its
 * distance from joint k's origin × |Δ| — the chain's offsets between joint k
 * and the item's frame plus the item's own reach — and joints upstream of
 * both items of a pair move them together, so they do not count for it.
 */
export class EnvelopeModel {
  readonly kin: ArmKinematics;
  readonly items: EnvelopeItems;
  readonly tests: readonly EnvelopeTest[];
  /** tests × dof, row-major. */
  readonly rates: Float64Array;
  readonly frame: string;
  readonly floorZ: number | undefined;
  readonly keepIn: { readonly min: readonly number[]; readonly max: readonly number[] } | undefined;
  readonly keepOut: readonly KeepOutZone[];
  readonly maxStepM: number | undefined;
  /**
   * Link pairs whose volumes touch in every one of ALWAYS_SAMPLES random
   * configurations: not checked (checking them would refuse every motion),
   * and named at start so the volumes or allowed_contacts can be fixed.
   */
  readonly alwaysInContact: readonly (readonly [string, string])[];
  readonly #zoneBoxes: Float64Array;
  readonly #scratch = new Float64Array(6);
  readonly #pointOut = new Float64Array(4);

  private constructor(config: ArmConfig, kin: ArmKinematics) {
    const ws = config.workspace;
    const { chain } = kin;
    this.kin = kin;
    this.frame = ws?.frame ?? chain.baseLink;
    const toFrame: Transform =
      ws?.frame === undefined ? identity() : invert(chain.fixedFrames.get(ws.frame) ?? identity());
    this.items = new EnvelopeItems(kin, toFrame);
    this.floorZ = ws?.floorZ;
    this.keepIn = ws?.keepIn;
    this.keepOut = ws?.keepOut ?? [];
    this.maxStepM = ws?.maxStepM;
    this.#zoneBoxes = new Float64Array(BOX_STRIDE * this.keepOut.length);
    for (const [z, zone] of this.keepOut.entries())
      if (zone.kind === "box") writeAxisAlignedBox(this.#zoneBoxes, BOX_STRIDE * z, zone.min, zone.max);

    const items = this.items.items;
    const tests: EnvelopeTest[] = [];
    const vertical = this.floorZ !== undefined || this.keepIn !== undefined;
    const sideways = this.keepIn !== undefined || this.keepOut.length > 0;
    for (const [i, it] of items.entries()) {
      if (it.ref < 0) continue;
      if (vertical) tests.push({ kind: "vertical", item: i });
      if (sideways) tests.push({ kind: "workspace", item: i });
    }
    // A pair is reported from the link farther down the chain: the one the motion brings to the other.
    for (const [v, w] of kin.bodies.pairs)
      tests.push(
        (items[v]?.ref ?? 0) >= (items[w]?.ref ?? 0)
          ? { kind: "pair", item: v, other: w }
          : { kind: "pair", item: w, other: v },
      );
    const tip = items.findIndex((it) => it.what === "frame" && it.link === chain.tipLink);
    if (this.maxStepM !== undefined && tip >= 0) tests.push({ kind: "step", item: tip });
    this.tests = tests;
    const always = this.#pairsAlwaysInContact();
    this.tests = tests.filter((_, t) => !always.has(t));
    this.alwaysInContact = [...always].map((t) => {
      const test = tests[t];
      return [
        items[test?.item ?? 0]?.link ?? "?",
        test?.kind === "pair" ? (items[test.other]?.link ?? "?") : "?",
      ] as const;
    });

    this.rates = clearanceRatesOf(kin, toFrame, items, this.tests);
  }

  /**
   * Pair tests in contact at every one of ALWAYS_SAMPLES random joint vectors
   * within the chain's limits (a fixed seed: the same answer every start),
   * as MoveIt's setup assistant marks pairs "always in collision".
   */
  #pairsAlwaysInContact(): Set<number> {
    const chain = this.kin.chain;
    const pairs = this.tests.map((t, i) => [t, i] as const).filter(([t]) => t.kind === "pair");
    const touching = new Set(pairs.map(([, i]) => i));
    if (touching.size === 0) return touching;
    const random = mulberry32(20);
    const q = new Float64Array(chain.dof);
    const none = new Float64Array(3);
    for (let n = 0; n < ALWAYS_SAMPLES && touching.size > 0; n++) {
      for (const [k, v] of chain.variables.entries()) q[k] = v.lower + random() * (v.upper - v.lower);
      chain.kernel.forward(q);
      for (let i = 0; i < this.items.items.length; i++) this.items.place(i, chain.kernel.jointFrames);
      for (const i of [...touching]) if (this.clearance(i, none) >= MARGIN_M) touching.delete(i);
    }
    return touching;
  }

  /** The compiled envelope of a config (cached per config object), or undefined without kinematics. */
  static of(config: ArmConfig): EnvelopeModel | undefined {
    if (cache.has(config)) return cache.get(config);
    const kin = armKinematicsOf(config);
    const model = kin ? new EnvelopeModel(config, kin) : undefined;
    cache.set(config, model);
    return model;
  }

  /** Whether any test exists: a workspace to stay in, volumes that may collide, a step limit. */
  get checksAnything(): boolean {
    return this.tests.length > 0;
  }

  /**
   * Test `t`'s clearance (metres; negative: overlap) with the items placed in
   * `items.world`. For the step test, `stepFrom` is where the tip started.
   * `report`, when given, is filled with what the clearance was measured to.
   */
  clearance(t: number, stepFrom: Float64Array, report?: { contact?: Contact }): number {
    const test = this.tests[t];
    if (!test) return Infinity;
    const W = this.items.world;
    switch (test.kind) {
      case "vertical":
        return this.#workspaceClearance(test.item, "vertical", report);
      case "workspace":
        return this.#workspaceClearance(test.item, "sideways", report);
      case "pair":
        return this.#pairClearance(test.item, test.other, report);
      case "step": {
        const o = STRIDE * test.item;
        const d = Math.hypot(
          (W[o] ?? 0) - (stepFrom[0] ?? 0),
          (W[o + 1] ?? 0) - (stepFrom[1] ?? 0),
          (W[o + 2] ?? 0) - (stepFrom[2] ?? 0),
        );
        const c = (this.maxStepM ?? Infinity) - d;
        if (report)
          report.contact = {
            obstacle: { kind: "max_step", name: "max_step_m" },
            point: [W[o] ?? 0, W[o + 1] ?? 0, W[o + 2] ?? 0],
            clearance: c,
          };
        return c;
      }
    }
  }

  /** The fast path: the smallest clearance to the floor and keep_in's bottom and top, or to keep_in's sides and every keep-out zone. */
  #workspaceClearance(i: number, which: "vertical" | "sideways", report: { contact?: Contact } | undefined): number {
    if (report) return this.#workspaceContact(i, which, report);
    const W = this.items.world,
      o = STRIDE * i;
    const box = this.items.items[i]?.kind === BOX;
    let best = Infinity;
    const r = box ? 0 : (W[o + 6] ?? 0);
    const first = which === "vertical" ? 2 : 0,
      last = which === "vertical" ? 2 : 1;
    for (let a = first; a <= last; a++) {
      if (a < 2 && this.keepIn === undefined) continue;
      const ext = box ? boxExtentAlong(W, o, a) : r;
      const pa = W[o + a] ?? 0,
        pb = box ? pa : (W[o + 3 + a] ?? 0);
      const low = (pa < pb ? pa : pb) - ext,
        high = (pa > pb ? pa : pb) + ext;
      if (a === 2 && this.floorZ !== undefined && low - this.floorZ < best) best = low - this.floorZ;
      if (this.keepIn) {
        const dl = low - (this.keepIn.min[a] ?? -Infinity),
          dh = (this.keepIn.max[a] ?? Infinity) - high;
        if (dl < best) best = dl;
        if (dh < best) best = dh;
      }
    }
    if (which === "sideways") {
      for (let z = 0; z < this.keepOut.length; z++) {
        const c = this.#zoneClearance(i, z);
        if (c < best) best = c;
      }
    }
    return best;
  }

  #zoneClearance(i: number, z: number): number {
    const zone = this.keepOut[z];
    if (!zone) return Infinity;
    const W = this.items.world,
      o = STRIDE * i,
      P = this.#pointOut;
    const box = this.items.items[i]?.kind === BOX;
    if (zone.kind === "box") {
      if (box) {
        P.set([W[o] ?? 0, W[o + 1] ?? 0, W[o + 2] ?? 0]);
        return boxBoxSeparation(W, o, this.#zoneBoxes, BOX_STRIDE * z);
      }
      return (
        segmentBoxDistance(
          W[o] ?? 0,
          W[o + 1] ?? 0,
          W[o + 2] ?? 0,
          W[o + 3] ?? 0,
          W[o + 4] ?? 0,
          W[o + 5] ?? 0,
          zone.min[0],
          zone.min[1],
          zone.min[2],
          zone.max[0],
          zone.max[1],
          zone.max[2],
          P,
        ) - (W[o + 6] ?? 0)
      );
    }
    if (box) {
      const [ax, ay, az, bx, by, bz, r] = boxAsCapsule(W, o);
      return (
        segmentCylinderDistance(
          ax,
          ay,
          az,
          bx,
          by,
          bz,
          zone.center[0],
          zone.center[1],
          zone.radius,
          zone.zMin,
          zone.zMax,
          P,
        ) - r
      );
    }
    return (
      segmentCylinderDistance(
        W[o] ?? 0,
        W[o + 1] ?? 0,
        W[o + 2] ?? 0,
        W[o + 3] ?? 0,
        W[o + 4] ?? 0,
        W[o + 5] ?? 0,
        zone.center[0],
        zone.center[1],
        zone.radius,
        zone.zMin,
        zone.zMax,
        P,
      ) - (W[o + 6] ?? 0)
    );
  }

  /** The same clearance, saying what it was measured to and where (for a refusal). */
  #workspaceContact(i: number, which: "vertical" | "sideways", report: { contact?: Contact }): number {
    const W = this.items.world,
      o = STRIDE * i;
    const box = this.items.items[i]?.kind === BOX;
    let best: Contact | undefined;
    const consider = (contact: Contact): void => {
      if (!best || contact.clearance < best.clearance) best = contact;
    };
    const r = box ? 0 : (W[o + 6] ?? 0);
    // Per axis: the item's lowest and highest point along it.
    const extreme = (a: number, high: boolean): { value: number; point: [number, number, number] } => {
      if (box) {
        const p: [number, number, number] = [W[o] ?? 0, W[o + 1] ?? 0, W[o + 2] ?? 0];
        const value = (p[a] ?? 0) + (high ? 1 : -1) * boxExtentAlong(W, o, a);
        p[a] = value;
        return { value, point: p };
      }
      const useB = high ? (W[o + 3 + a] ?? 0) > (W[o + a] ?? 0) : (W[o + 3 + a] ?? 0) < (W[o + a] ?? 0);
      const b = useB ? o + 3 : o;
      const p: [number, number, number] = [W[b] ?? 0, W[b + 1] ?? 0, W[b + 2] ?? 0];
      const value = (p[a] ?? 0) + (high ? r : -r);
      p[a] = value;
      return { value, point: p };
    };
    if (this.floorZ !== undefined && which === "vertical") {
      const low = extreme(2, false);
      consider({ obstacle: { kind: "floor", name: "floor_z" }, point: low.point, clearance: low.value - this.floorZ });
    }
    if (this.keepIn) {
      for (let a = which === "vertical" ? 2 : 0; a <= (which === "vertical" ? 2 : 1); a++) {
        const low = extreme(a, false),
          high = extreme(a, true);
        consider({
          obstacle: { kind: "keep_in", name: `keep_in.min ${AXES[a]}` },
          point: low.point,
          clearance: low.value - (this.keepIn.min[a] ?? -Infinity),
        });
        consider({
          obstacle: { kind: "keep_in", name: `keep_in.max ${AXES[a]}` },
          point: high.point,
          clearance: (this.keepIn.max[a] ?? Infinity) - high.value,
        });
      }
    }
    const P = this.#pointOut;
    for (const [z, zone] of which === "sideways" ? this.keepOut.entries() : []) {
      const c = this.#zoneClearance(i, z);
      consider({
        obstacle: { kind: "keep_out", name: zone.name },
        point: [P[0] ?? 0, P[1] ?? 0, P[2] ?? 0],
        clearance: c,
      });
    }
    if (best) report.contact = best;
    return best?.clearance ?? Infinity;
  }

  #pairClearance(i: number, j: number, report: { contact?: Contact } | undefined): number {
    const W = this.items.world,
      a = STRIDE * i,
      b = STRIDE * j;
    const items = this.items.items;
    const boxA = items[i]?.kind === BOX,
      boxB = items[j]?.kind === BOX;
    const S = this.#scratch;
    let c: number;
    if (!boxA && !boxB) {
      c = segmentSegmentDistance(
        W[a] ?? 0,
        W[a + 1] ?? 0,
        W[a + 2] ?? 0,
        W[a + 3] ?? 0,
        W[a + 4] ?? 0,
        W[a + 5] ?? 0,
        W[b] ?? 0,
        W[b + 1] ?? 0,
        W[b + 2] ?? 0,
        W[b + 3] ?? 0,
        W[b + 4] ?? 0,
        W[b + 5] ?? 0,
        S,
      );
      c -= (W[a + 6] ?? 0) + (W[b + 6] ?? 0);
    } else if (boxA && boxB) {
      c = boxBoxSeparation(W, a, W, b);
      S.set([W[a] ?? 0, W[a + 1] ?? 0, W[a + 2] ?? 0]);
    } else {
      const [cap, bx] = boxA ? [b, a] : [a, b];
      c =
        segmentOrientedBoxDistance(
          W[cap] ?? 0,
          W[cap + 1] ?? 0,
          W[cap + 2] ?? 0,
          W[cap + 3] ?? 0,
          W[cap + 4] ?? 0,
          W[cap + 5] ?? 0,
          W,
          bx,
          S,
        ) - (W[cap + 6] ?? 0);
    }
    if (report)
      report.contact = {
        obstacle: { kind: "link", name: items[j]?.link ?? "?" },
        point: [S[0] ?? 0, S[1] ?? 0, S[2] ?? 0],
        clearance: c,
      };
    return c;
  }
}

const cache = new WeakMap<ArmConfig, EnvelopeModel | undefined>();

const ALWAYS_SAMPLES = 256;
