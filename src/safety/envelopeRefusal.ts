import { ArmbridgeError } from "../errors.js";
import type { EnvelopeVerdict } from "./EnvelopeVerdict.js";
import { STRIDE } from "./EnvelopeItems.js";
import type { EnvelopeContact } from "./EnvelopeContact.js";
import type { Contact, EnvelopeModel } from "./EnvelopeModel.js";
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
  const c = report.contact ?? { obstacle: { kind: "floor", name: "floor_z" } as const, point: [NaN, NaN, NaN] as [number, number, number], clearance: NaN };
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
  const why =
    r.inFlight.length > 0
      ? ` with the ${r.inFlight.length} motion(s) in flight on other joints at some point of theirs; retry when they end`
      : s === 0
        ? test?.kind === "pair"
          ? "; the arm is already in that configuration: move it apart with joint moves that separate the links"
          : "; the arm is already outside the envelope: move it back by hand or with joint moves that stay inside"
        : "";
  const point = `(${c.point.map((v) => v.toFixed(3)).join(", ")}) m`;
  const needed = `clearance ${mm(c.clearance)}, at least ${mm(required)} needed`;
  if (test?.kind === "pair") {
    const e = new ArmbridgeError("ARMB_ERR_SELF_COLLISION", { tool, link, other: c.obstacle.name, point, clearance: c.clearance.toFixed(4), rule: `${needed}${why}` });
    return { ok: false, code: e.code, issues: [{ path: "(envelope)", code: "self_collision", message: `${e.message} ${where}` }], link, point: c.point, at: s, contact };
  }
  const rule = c.obstacle.kind === "max_step" ? `${ruleText(c, part, model)}${why}` : `${ruleText(c, part, model)}: ${needed}${why}`;
  const e = new ArmbridgeError("ARMB_ERR_ENVELOPE_VIOLATION", { tool, link, point, rule });
  return { ok: false, code: e.code, issues: [{ path: "(envelope)", code: "outside_envelope", message: `${e.message} ${where}` }], link, point: c.point, at: s, contact };
}

function ruleText(c: Contact, part: "volume" | "frame", model: EnvelopeModel): string {
  const [x, y, z] = c.point;
  const whose = part === "volume" ? "its collision volume's" : "its frame's";
  switch (c.obstacle.kind) {
    case "floor":
      return part === "frame" ? `z ${z.toFixed(3)} is below floor_z ${model.floorZ}` : `${whose} lowest point, z ${z.toFixed(3)}, comes down to floor_z ${model.floorZ}`;
    case "keep_in": {
      const axis = c.obstacle.name.slice(-1);
      const value = axis === "x" ? x : axis === "y" ? y : z;
      const low = c.obstacle.name.startsWith("keep_in.min");
      const limit = low ? model.keepIn?.min[axisIndex(axis)] : model.keepIn?.max[axisIndex(axis)];
      return `${part === "volume" ? `${whose} ` : ""}${axis} ${value.toFixed(3)} is ${low ? "below" : "above"} ${low ? "keep_in.min" : "keep_in.max"} ${limit}`;
    }
    case "keep_out":
      return `${part === "volume" ? "its collision volume" : "its frame"} ${c.clearance < 0 ? "enters" : "comes to"} keep_out zone ${c.obstacle.name}`;
    case "max_step":
      return `it would travel ${((model.maxStepM ?? 0) - c.clearance).toFixed(3)} m from where it started, more than max_step_m ${model.maxStepM}; move in smaller steps`;
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
