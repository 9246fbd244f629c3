import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

const POINT = z.tuple([z.number(), z.number(), z.number()]);

/** A volume as an oriented box or a capsule (a sphere when a = b), in some frame (metres). */
export const SHAPE_VIEW = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("capsule"), a: POINT, b: POINT, radius: z.number() }),
  z.strictObject({ kind: z.literal("box"), center: POINT, axes: z.tuple([POINT, POINT, POINT]), half: POINT }),
]);
export type ShapeView = WireOf<typeof SHAPE_VIEW>;

/** What a clearance was measured against. */
export const OBSTACLE_VIEW = z.strictObject({
  kind: z.enum(["floor", "keep_in", "keep_out", "link", "max_step"]),
  /** `floor_z`, the keep_in face (`keep_in.max x`…), the zone's name, the other link, `max_step_m`. */
  name: z.string(),
});

/** A refusal's contact: which link, what it would meet, where (in `frame`), how close, at which fraction of the path, the joints there. */
export const ENVELOPE_CONTACT_VIEW = z.strictObject({
  link: z.string(),
  /** The link's collision volume, or its frame's origin. */
  part: z.enum(["volume", "frame"]),
  obstacle: OBSTACLE_VIEW,
  point: POINT,
  frame: z.string(),
  /** Metres; negative: into it. */
  clearance_m: z.number(),
  required_m: z.number(),
  at: z.number(),
  joints: z.record(z.string(), z.number()),
  /** Action ids of the motions in flight combined with this one. */
  in_flight: z.array(z.string()),
  /** The link's volume placed at the contact. */
  volume: z.optional(SHAPE_VIEW),
  /** The other link's volume there, for a self-collision. */
  other_volume: z.optional(SHAPE_VIEW),
});
export type EnvelopeContactView = WireOf<typeof ENVELOPE_CONTACT_VIEW>;

const KEEP_OUT_VIEW = z.discriminatedUnion("kind", [
  z.strictObject({ name: z.string(), kind: z.literal("box"), min: POINT, max: POINT }),
  z.strictObject({
    name: z.string(),
    kind: z.literal("cylinder"),
    center: z.tuple([z.number(), z.number()]),
    radius: z.number(),
    z: z.tuple([z.number(), z.number()]),
  }),
]);

/** GET /v1/arm `envelope`: what the safety envelope is made of, for a 3D view (metres, in `frame`; link volumes in their own link's frame). */
export const ENVELOPE_DESCRIPTION_VIEW = z.strictObject({
  frame: z.string(),
  keep_in: z.nullable(z.strictObject({ min: POINT, max: POINT })),
  floor_z: z.nullable(z.number()),
  max_step_m: z.nullable(z.number()),
  keep_out: z.array(KEEP_OUT_VIEW),
  allowed_contacts: z.array(z.tuple([z.string(), z.string()])),
  link_volumes: z.array(z.strictObject({ link: z.string(), source: z.string(), shape: SHAPE_VIEW })),
  /** Link pairs never checked for self-collision, and why. */
  unchecked_pairs: z.array(
    z.strictObject({
      links: z.tuple([z.string(), z.string()]),
      why: z.enum(["adjacent", "allowed_contacts", "rigid", "static", "always"]),
    }),
  ),
  limits: z.strictObject({ max_tool_speed_mps: z.nullable(z.number()), motions_per_minute: z.nullable(z.number()) }),
});
export type EnvelopeDescriptionView = WireOf<typeof ENVELOPE_DESCRIPTION_VIEW>;

/** GET /v1/state `envelope`: the link volumes where the arm is, the newest refusal, the motion rate. */
export const ENVELOPE_STATE_VIEW = z.strictObject({
  /** Every link volume placed for the arm's reported joints (workspace frame); null without kinematics or a full pose. */
  volumes: z.nullable(z.array(z.strictObject({ link: z.string(), shape: SHAPE_VIEW }))),
  last_refusal: z.nullable(
    z.extend(ENVELOPE_CONTACT_VIEW, { call_id: z.string(), tool: z.string(), at_ms: z.number() }),
  ),
  motion_rate: z.nullable(z.strictObject({ per_minute: z.number(), tokens: z.number() })),
});
export type EnvelopeStateView = WireOf<typeof ENVELOPE_STATE_VIEW>;

/** GET /v1/arm/volumes: every link volume placed for a pose that need not be the arm's (a target drawn as a ghost). */
export const PLACED_VOLUMES_VIEW = z.strictObject({
  /** The workspace frame the volumes are in (as `envelope.frame`). */
  frame: z.string(),
  /** The whole chain pose placed: the joints named in the query, the rest as the arm last reported them. */
  joints: z.record(z.string(), z.number()),
  /** Chain joints the query did not name, taken from the arm's latest status. */
  from_status: z.array(z.string()),
  volumes: z.array(z.strictObject({ link: z.string(), shape: SHAPE_VIEW })),
});
export type PlacedVolumesView = WireOf<typeof PLACED_VOLUMES_VIEW>;
