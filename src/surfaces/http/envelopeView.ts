import type { BridgeState, HostedBridgePort } from "../../bridge/BridgePort.js";
import type { KeepOutZone } from "../../config/envelopeConfig.js";
import { EnvelopeModel } from "../../safety/EnvelopeModel.js";
import { placedVolumes } from "../../safety/placedVolumes.js";
import type { EnvelopeDescriptionView, EnvelopeStateView } from "../../wire/EnvelopeView.js";

type KeepOutZoneView = EnvelopeDescriptionView["keep_out"][number];

/**
 * GET /v1/arm `envelope`: what the safety envelope is made of, for a 3D view
 * to draw — the keep-in box, the floor, the keep-out zones, each link's
 * volumes in its own frame and where they came from, the link pairs never
 * checked and why, and the speed and rate limits (wire/EnvelopeView.ts).
 */

export function envelopeDescriptionView(bridge: HostedBridgePort): EnvelopeDescriptionView | null {
  const model = EnvelopeModel.of(bridge.config);
  if (!model) return null;
  const { bodies } = model.kin;
  const limits = bridge.config.limits;
  return {
    frame: model.frame,
    keep_in: model.keepIn ? { min: point(model.keepIn.min), max: point(model.keepIn.max) } : null,
    floor_z: model.floorZ ?? null,
    max_step_m: model.maxStepM ?? null,
    keep_out: model.keepOut.map(zoneView),
    allowed_contacts: bridge.config.workspace?.allowedContacts ?? [],
    link_volumes: bodies.linkVolumes.map((v) => ({ link: v.link, source: v.source, shape: v.shape })),
    unchecked_pairs: [
      ...bodies.skipped.map((p) => ({ links: p.links, why: p.why })),
      ...model.alwaysInContact.map((links) => ({ links, why: "always" as const })),
    ],
    limits: { max_tool_speed_mps: limits.maxToolSpeedMps ?? null, motions_per_minute: limits.motionsPerMinute ?? null },
  };
}

/**
 * GET /v1/state `envelope`: every link volume where the arm's reported joints
 * put it, the newest refusal (link, obstacle, where, clearance, the volumes
 * involved placed at the contact), and the motion rate's tokens.
 */
export function envelopeStateView(
  bridge: Pick<HostedBridgePort, "config">,
  state: Pick<BridgeState, "motionRate" | "lastEnvelopeRefusal">,
  pose: Readonly<Record<string, number>>,
  now: number,
): EnvelopeStateView {
  const model = EnvelopeModel.of(bridge.config);
  const rate = state.motionRate;
  return {
    volumes: model ? (placedVolumes(model, pose) ?? null) : null,
    last_refusal: state.lastEnvelopeRefusal ?? null,
    motion_rate: rate ? { per_minute: rate.perMinute, tokens: Math.round(rate.tokens(now) * 1000) / 1000 } : null,
  };
}

function point(v: readonly number[]): [number, number, number] {
  return [v[0] ?? 0, v[1] ?? 0, v[2] ?? 0];
}

function zoneView(zone: KeepOutZone): KeepOutZoneView {
  return zone.kind === "box"
    ? { name: zone.name, kind: "box", min: zone.min, max: zone.max }
    : { name: zone.name, kind: "cylinder", center: zone.center, radius: zone.radius, z: [zone.zMin, zone.zMax] };
}
