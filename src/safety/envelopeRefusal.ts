import { ArmbridgeError } from "../errors.js";
import type { EnvelopeVerdict } from "./EnvelopeVerdict.js";
import { STRIDE } from "./EnvelopeItems.js";
import type { EnvelopeContact } from "./EnvelopeContact.js";
import type { EnvelopeModel } from "./EnvelopeModel.js";
import type { Contact } from "./EnvelopeTest.js";
import { apart } from "./inFlightWords.js";
import { placedShape } from "./placedVolumes.js";

export interface RefusalInput {
  readonly model: EnvelopeModel;
  readonly tool: string;
  readonly test: number;
  readonly s: number;
  readonly start: Float64Array;
  readonly delta: Float64Array;
  readonly bound: number;
  readonly inFlight: readonly string[];
  /** What to do about those motions, in words (whenInFlightEnd): wait for them, or ask the operator about an unknown one. */
  readonly whenTheyEnd: string;
}

/** The refusal for a test that failed at s: the contact measured again with its details, in words and in data. */
export function envelopeRefusal(r: RefusalInput): EnvelopeVerdict {
  const { model, tool, s } = r;
  const test = model.tests[r.test];
  const kernel = model.kin.chain.kernel;
  const q = r.start.map((v, k) => v + s * (r.delta[k] ?? 0));
  const stepFrom = new Float64Array(3);
  if (test?.kind === "step") {
    kernel.forward(r.start);
    model.items.place(test.item, kernel.jointFrames);
    stepFrom.set(model.items.world.subarray(STRIDE * test.item, STRIDE * test.item + 3));
  }
  kernel.forward(q);
  if (test) {
    model.items.place(test.item, kernel.jointFrames);
    if (test.kind === "pair") model.items.place(test.other, kernel.jointFrames);
  }
  const report: { contact?: Contact } = {};
  model.clearance(r.test, stepFrom, report);
  const item = test ? model.items.items[test.item] : undefined;
  const c = report.contact ?? {
    obstacle: { kind: "floor", name: "floor_z" } as const,
    point: [NaN, NaN, NaN] as [number, number, number],
    clearance: NaN,
  };
  const link = item?.link ?? "?";
  const part = item?.what ?? "frame";
  const required = 0.001 + r.bound;
  const contact: EnvelopeContact = {
    link,
    part,
    obstacle: c.obstacle,
    point: c.point,
    frame: model.frame,
    clearance_m: round(c.clearance),
    required_m: round(required),
    at: s,
    joints: Object.fromEntries(model.kin.jointNames.map((n, k) => [n, q[k] ?? 0])),
    in_flight: r.inFlight,
    ...(test && part === "volume" ? { volume: placedShape(model, test.item) } : {}),
    ...(test?.kind === "pair" ? { other_volume: placedShape(model, test.other) } : {}),
  };
  const where = `(at ${Math.round(s * 100)}% of the path)`;
  const why = becauseText(r, test?.kind === "pair");
  const point = `(${c.point.map((v) => v.toFixed(3)).join(", ")}) m`;
  const needed = `clearance ${mm(c.clearance)}, at least ${mm(required)} needed`;
  if (test?.kind === "pair") {
    const e = new ArmbridgeError("ARMB_ERR_SELF_COLLISION", {
      tool,
      link,
      other: c.obstacle.name,
      point,
      clearance: c.clearance.toFixed(4),
      rule: `${needed}${why}`,
    });
    return {
      ok: false,
      code: e.code,
      issues: [{ path: "(envelope)", code: "self_collision", message: `${e.message} ${where}` }],
      link,
      point: c.point,
      at: s,
      contact,
    };
  }
  const rule =
    c.obstacle.kind === "max_step"
      ? `${ruleText(c, part, model, required)}${why}`
      : `${ruleText(c, part, model, required)}: ${needed}${why}`;
  const e = new ArmbridgeError("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link, point, rule });
  return {
    ok: false,
    code: e.code,
    issues: [{ path: "(envelope)", code: "outside_envelope", message: `${e.message} ${where}` }],
    link,
    point: c.point,
    at: s,
    contact,
  };
}

/** Why the contact counts: the motions in flight it was measured with, or that the arm starts there. */
function becauseText(r: RefusalInput, pair: boolean): string {
  return r.inFlight.length > 0
    ? ` with the ${r.inFlight.length} motion(s) in flight on other joints at some point of theirs; ${r.whenTheyEnd}`
    : r.s === 0
      ? pair
        ? "; the arm is already in that configuration: move it apart with joint moves that separate the links"
        : "; the arm is already outside the envelope: move it back by hand or with joint moves that stay inside"
      : "";
}

/**
 * The rule the contact breaks, in words. The check keeps a margin (`required`,
 * metres) from every limit, so a point can be refused while still inside it:
 * the words say "within … of" then, never "below"/"more than", and print the
 * numbers to the precision that shows which side of the limit they are on.
 */
function ruleText(c: Contact, part: "volume" | "frame", model: EnvelopeModel, required: number): string {
  const [x, y, z] = c.point;
  const whose = part === "volume" ? "its collision volume's" : "its frame's";
  const near = `within ${mm(required)} of`;
  switch (c.obstacle.kind) {
    case "floor": {
      const n = apart(z, model.floorZ ?? 0);
      if (part === "volume") return `${whose} lowest point, z ${n.value}, comes down to floor_z ${n.limit}`;
      return `z ${n.value} is ${z < (model.floorZ ?? 0) ? "below" : near} floor_z ${n.limit}`;
    }
    case "keep_in": {
      const axis = c.obstacle.name.slice(-1);
      const value = axis === "x" ? x : axis === "y" ? y : z;
      const low = c.obstacle.name.startsWith("keep_in.min");
      const limit = (low ? model.keepIn?.min[axisIndex(axis)] : model.keepIn?.max[axisIndex(axis)]) ?? 0;
      const n = apart(value, limit);
      const beyond = low ? value < limit : value > limit;
      return `${part === "volume" ? `${whose} ` : ""}${axis} ${n.value} is ${beyond ? (low ? "below" : "above") : near} ${low ? "keep_in.min" : "keep_in.max"} ${n.limit}`;
    }
    case "keep_out":
      return `${part === "volume" ? "its collision volume" : "its frame"} ${c.clearance < 0 ? "enters" : "comes to"} keep_out zone ${c.obstacle.name}`;
    case "max_step": {
      const max = model.maxStepM ?? 0;
      const n = apart(max - c.clearance, max);
      return `it would travel ${n.value} m from where it started, ${c.clearance < 0 ? "more than" : near} max_step_m ${n.limit}; move in smaller steps`;
    }
    case "link":
      return `it comes to ${c.obstacle.name}`;
  }
}

function mm(v: number): string {
  return `${(v * 1000).toFixed(1)} mm`;
}

function axisIndex(axis: string): number {
  return axis === "x" ? 0 : axis === "y" ? 1 : 2;
}

function round(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}
