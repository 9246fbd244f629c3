import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { InFlightMotion } from "../../src/safety/InFlightMotions.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { deepestMeetingOutside } from "./deepestMeetingOutside.js";

/**
 * How far outside the envelope a probe's path must take a link together with
 * the unsettled motion's (m): far beyond the judge's tolerance
 * (PATH_MEETING_TOLERANCE_M), so a probe the bridge wrongly accepts cannot
 * pass the judge on a technicality.
 */
export const PROBE_DEPTH_M = 0.03;

export interface ProbeSearch {
  readonly config: ArmConfig;
  /** Where every joint is now. */
  readonly pose: Readonly<Record<string, number>>;
  /** The unsettled motion to meet. */
  readonly unsettled: InFlightMotion;
  /** Other motions the bridge counts in flight: alongside them the probe alone must pass. */
  readonly alsoInFlight: readonly InFlightMotion[];
  /** Joints not to move (held by unsettled motions). */
  readonly exclude: ReadonlySet<string>;
  readonly random: () => number;
  /** Random candidates tried before giving up (default 40). */
  readonly tries?: number;
  /** Candidates tried first (a staged scenario's probe). */
  readonly first?: readonly { readonly joint: string; readonly target: number }[];
}

/**
 * A single-joint move that the envelope allows on its own — from the pose
 * now, alongside everything else in flight — but whose path, combined with
 * the unsettled motion's at some progress of each, takes a link at least
 * PROBE_DEPTH_M outside the envelope: exactly what a bridge that forgot the
 * unsettled motion would send. Seeded random candidates; undefined when none
 * was found in `tries`.
 */
export function findProbe(s: ProbeSearch): { readonly joint: string; readonly target: number } | undefined {
  const joints = s.config.arm.joints.filter((j) => !s.exclude.has(j.name) && s.unsettled.to[j.name] === undefined);
  if (joints.length === 0) return undefined;
  const fits = (joint: string, target: number): boolean => {
    const from = s.pose[joint];
    if (from === undefined || Math.abs(target - from) < 0.2) return false;
    if (!checkMotionEnvelope(s.config, s.pose, { [joint]: target }, "move_joints", s.alsoInFlight).ok) return false;
    const meeting = deepestMeetingOutside(
      s.config,
      s.pose,
      { from: { [joint]: from }, to: { [joint]: target } },
      s.unsettled,
      { maxSamples: 40 },
    );
    return meeting !== undefined && meeting.depthM >= PROBE_DEPTH_M;
  };
  for (const c of s.first ?? []) if (joints.some((j) => j.name === c.joint) && fits(c.joint, c.target)) return c;
  for (let i = 0; i < (s.tries ?? 40); i++) {
    const j = joints[Math.floor(s.random() * joints.length)]!;
    const target = Number((j.min + 0.05 + s.random() * (j.max - j.min - 0.1)).toFixed(3));
    if (fits(j.name, target)) return { joint: j.name, target };
  }
  return undefined;
}
