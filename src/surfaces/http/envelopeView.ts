import type { Bridge } from "../../bridge/Bridge.js";
import type { KeepOutZone } from "../../config/envelopeConfig.js";
import type { EnvelopeRefusalRecord } from "../../executor/Executor.js";
import type { VolumeShape } from "../../kinematics/volumes/VolumeShape.js";
import { EnvelopeModel } from "../../safety/EnvelopeModel.js";
import { placedVolumes, type PlacedVolume } from "../../safety/placedVolumes.js";

/**
 * GET /v1/arm `envelope`: what the safety envelope is made of, for a 3D view
 * to draw (metres; `frame` is the workspace frame every position is in):
 * the keep-in box, the floor, the keep-out zones, each link's volumes in its
 * own frame (and where they came from), which link pairs are never checked
 * and why, and the speed and rate limits.
 */
export interface EnvelopeDescriptionView {
  readonly frame: string;
  readonly keep_in: { readonly min: readonly number[]; readonly max: readonly number[] } | null;
  readonly floor_z: number | null;
  readonly max_step_m: number | null;
  readonly keep_out: readonly KeepOutZoneView[];
  readonly allowed_contacts: readonly (readonly [string, string])[];
  readonly link_volumes: readonly { readonly link: string; readonly source: string; readonly shape: VolumeShape }[];
  /** Link pairs not checked for self-collision: adjacent, allowed_contacts, rigid (one body), static (both on the base), always (touching in every configuration sampled). */
  readonly unchecked_pairs: readonly { readonly links: readonly [string, string]; readonly why: string }[];
  readonly limits: { readonly max_tool_speed_mps: number | null; readonly motions_per_minute: number | null };
}

export type KeepOutZoneView =
  | { readonly name: string; readonly kind: "box"; readonly min: readonly number[]; readonly max: readonly number[] }
  | { readonly name: string; readonly kind: "cylinder"; readonly center: readonly number[]; readonly radius: number; readonly z: readonly [number, number] };

/**
 * GET /v1/state `envelope`: the envelope now — every link volume where the
 * arm's reported joints put it, the newest refusal (link, obstacle, where,
 * clearance, the volumes involved placed where the contact would be), and
 * the motion rate's tokens.
 */
export interface EnvelopeStateView {
  readonly volumes: readonly PlacedVolume[] | null;
  readonly last_refusal: EnvelopeRefusalRecord | null;
  readonly motion_rate: { readonly per_minute: number; readonly tokens: number } | null;
}

export function envelopeDescriptionView(bridge: Bridge): EnvelopeDescriptionView | null {
  const model = EnvelopeModel.of(bridge.config);
  if (!model) return null;
  const { bodies } = model.kin;
  const limits = bridge.config.limits;
  return {
    frame: model.frame,
    keep_in: model.keepIn ? { min: model.keepIn.min, max: model.keepIn.max } : null,
    floor_z: model.floorZ ?? null,
    max_step_m: model.maxStepM ?? null,
    keep_out: model.keepOut.map(zoneView),
    allowed_contacts: bridge.config.workspace?.allowedContacts ?? [],
    link_volumes: bodies.linkVolumes.map((v) => ({ link: v.link, source: v.source, shape: v.shape })),
    unchecked_pairs: [...bodies.skipped.map((p) => ({ links: p.links, why: p.why })), ...model.alwaysInContact.map((links) => ({ links, why: "always" }))],
    limits: { max_tool_speed_mps: limits.maxToolSpeedMps ?? null, motions_per_minute: limits.motionsPerMinute ?? null },
  };
}

export function envelopeStateView(bridge: Bridge, pose: Readonly<Record<string, number>>, now: number): EnvelopeStateView {
  const model = EnvelopeModel.of(bridge.config);
  const rate = bridge.executor.motionRate;
  return {
    volumes: model ? (placedVolumes(model, pose) ?? null) : null,
    last_refusal: bridge.executor.lastEnvelopeRefusal ?? null,
    motion_rate: rate ? { per_minute: rate.perMinute, tokens: Math.round(rate.tokens(now) * 1000) / 1000 } : null,
  };
}

function zoneView(zone: KeepOutZone): KeepOutZoneView {
  return zone.kind === "box" ? { name: zone.name, kind: "box", min: zone.min, max: zone.max } : { name: zone.name, kind: "cylinder", center: zone.center, radius: zone.radius, z: [zone.zMin, zone.zMax] };
}
