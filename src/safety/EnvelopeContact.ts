import type { Obstacle } from "./EnvelopeTest.js";
import type { PlacedShape } from "./placedVolumes.js";

/**
 * A refusal's contact, as results and `GET /v1/state` carry it for a model
 * and for a 3D view: which link (its volume, or its frame's origin), what it
 * would meet (the floor, a face of keep_in, a keep-out zone, another link,
 * the step limit), where (the point, in the workspace frame), how close
 * (negative: into it), at which fraction of the path, and the arm's joints
 * there.
 */
export interface EnvelopeContact {
  readonly link: string;
  readonly part: "volume" | "frame";
  readonly obstacle: Obstacle;
  /** Metres, in `frame`. */
  readonly point: readonly [number, number, number];
  readonly frame: string;
  /** Metres; the envelope keeps at least `required_m`. */
  readonly clearance_m: number;
  readonly required_m: number;
  /** Fraction of the path from the current joints (0) to the targets (1). */
  readonly at: number;
  /** The arm's joints there (motions in flight at the combination found). */
  readonly joints: Readonly<Record<string, number>>;
  /** Action ids of the motions in flight the check combined with this one. */
  readonly in_flight: readonly string[];
  /** The link's volume there, in `frame` (absent for a link frame's origin). */
  readonly volume?: PlacedShape;
  /** The other link's volume there, for a self-collision. */
  readonly other_volume?: PlacedShape;
}
