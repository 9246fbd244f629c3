import type { EffectLine } from "../../firmware-sim/effectsJudge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { deepestMeetingOutside, type JointSegment } from "./deepestMeetingOutside.js";

/** What the envelope invariant reads of a ledger row (GET /v1/actions). */
export interface UnsettledRowView {
  readonly action_id: string;
  readonly call_id: string;
  readonly state: string;
  /** When its intent was recorded (epoch ms, the bridge's clock): from then on it may move the arm. */
  readonly created_at?: number | undefined;
  /** When it was settled or confirmed (epoch ms); null while `started` or `unknown`. */
  readonly settled_at?: number | null | undefined;
}

export interface PathMeetingViolation {
  readonly actionId: string;
  readonly callId: string;
  readonly detail: string;
}

/**
 * How far outside the envelope (m) a combination must reach to count. Below
 * it, what the bridge saw and what the effects log says can differ honestly:
 * a status is up to 10 ms old at 100 Hz, positions travel as float32.
 */
export const PATH_MEETING_TOLERANCE_M = 0.01;

/**
 * The envelope across unsettled motions, judged from ground truth: for every
 * motion that physically started (its motion_start line) while another one
 * that had also physically moved was not yet settled or confirmed in the
 * ledger (their [created_at, settled_at) intervals overlap) on other joints,
 * every combination of the two motions' progress — each along its own line
 * from where it really started (the effects log) to its commanded target —
 * must keep every link inside the workspace envelope. The later one was
 * admitted while the earlier one could still be anywhere on its path; an
 * unknown motion counts until an operator confirms it, restart or not.
 *
 * The other joints are held where the effects log has them when the later
 * motion started (a joint still moving under a third motion: where that one
 * began, a point of its path the bridge had to allow for too).
 */
export function pathsMeetingUnsettled(
  events: readonly EffectLine[],
  rows: readonly UnsettledRowView[],
  config: ArmConfig,
  toleranceM = PATH_MEETING_TOLERANCE_M,
): PathMeetingViolation[] {
  const chainJoints = new Set(config.arm.joints.map((j) => j.name));
  const starts = startsWithPose(events, Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home])));
  const moved = rows
    .filter((r) => r.created_at !== undefined && starts.has(r.action_id))
    .map((r) => {
      const s = starts.get(r.action_id)!;
      const joints = s.joints.filter((j) => chainJoints.has(j));
      const segment: JointSegment = { from: pick(s.from, joints), to: pick(s.to, joints) };
      return {
        row: r,
        createdAt: r.created_at!,
        settledAt: r.settled_at ?? Infinity,
        joints,
        segment,
        poseAtStart: s.pose,
      };
    })
    .filter((m) => m.joints.length > 0)
    .sort((a, b) => a.createdAt - b.createdAt);

  const out: PathMeetingViolation[] = [];
  for (let i = 0; i < moved.length; i++) {
    const u = moved[i]!;
    for (let k = i + 1; k < moved.length; k++) {
      const m = moved[k]!;
      if (m.createdAt >= u.settledAt) continue;
      if (m.joints.some((j) => u.joints.includes(j))) continue;
      const meeting = deepestMeetingOutside(config, m.poseAtStart, m.segment, u.segment);
      if (!meeting || meeting.depthM <= toleranceM) continue;
      const settled = u.settledAt === Infinity ? "never settled" : `settled at ${u.settledAt}`;
      out.push({
        actionId: m.row.action_id,
        callId: m.row.call_id,
        detail:
          `${m.row.action_id} on ${m.joints.join(",")} (recorded ${m.createdAt}) was accepted while ${u.row.action_id} on ${u.joints.join(",")} ` +
          `(recorded ${u.createdAt}, ${settled}; now ${u.row.state}) was unsettled: together they take ${meeting.link} ${(meeting.depthM * 1000).toFixed(0)} mm outside the envelope ` +
          `(${meeting.rule}) at ${Math.round(meeting.at[0] * 100)}% / ${Math.round(meeting.at[1] * 100)}% of their paths`,
      });
    }
  }
  return out;
}

interface StartSeen {
  readonly joints: readonly string[];
  readonly from: Readonly<Record<string, number>>;
  readonly to: Readonly<Record<string, number>>;
  /** Every joint's position as the log has it just before this start (resting, or where its running motion began). */
  readonly pose: Readonly<Record<string, number>>;
}

/** Each action id's first motion_start, with the pose of the whole arm at that moment. */
function startsWithPose(events: readonly EffectLine[], home: Readonly<Record<string, number>>): Map<string, StartSeen> {
  const pos: Record<string, number> = { ...home };
  const out = new Map<string, StartSeen>();
  for (const e of events) {
    if (e.event === "motion_start" && e.action_id !== null && e.from && e.to) {
      if (!out.has(e.action_id)) out.set(e.action_id, { joints: e.joints, from: e.from, to: e.to, pose: { ...pos } });
      Object.assign(pos, e.from);
    }
    if (e.event === "motion_end" && e.to) Object.assign(pos, e.to);
  }
  return out;
}

function pick(values: Readonly<Record<string, number>>, joints: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const j of joints) if (values[j] !== undefined) out[j] = values[j];
  return out;
}
