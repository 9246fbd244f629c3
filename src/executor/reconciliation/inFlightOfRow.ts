import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ActionRow } from "../../ledger/ActionRow.js";
import type { InFlightMotion } from "../../safety/InFlightMotions.js";

/**
 * The path a motion recorded in the ledger may be anywhere along, as segments
 * for the envelope check (checkMotionEnvelope's `inFlight`).
 *
 * The ledger records the command's absolute targets and, beside them, the
 * pose the motion started from (`command.from`, the transport's latest status
 * when the intent was written). With both, the motion is its whole straight
 * joint-space line, start to target: an arm still following it is somewhere
 * on that line, and one that stalled, sagged back or was pushed is too as far
 * as anyone who has not looked can tell.
 *
 * Rows written before the start was recorded (or when the arm had reported no
 * pose) have targets only. The start could then have been anywhere the joint
 * can be, so each such joint is its own segment over its whole configured
 * range [min, max]: independent segments put every combination of those
 * joints in play, which contains every straight line from any start to the
 * target. It refuses more than the exact path would, which is the point: an
 * unknown start is no licence to assume the motion stood still.
 *
 * Joints the row holds (its `joint:` resources) without a readable target (a
 * stored command the ledger could not read back) are treated the same way, so
 * a damaged command never shrinks what counts.
 */
export function inFlightOfRow(
  row: Pick<ActionRow, "actionId" | "command" | "resources">,
  config: ArmConfig,
): InFlightMotion[] {
  const limits = new Map(config.arm.joints.map((j) => [j.name, j] as const));
  const targets: Readonly<Record<string, number>> = row.command?.targets ?? {};
  const recordedFrom = row.command?.from ?? undefined;
  const from: Record<string, number> = {};
  const to: Record<string, number> = {};
  const unknownStart = new Set<string>();
  for (const [joint, target] of Object.entries(targets)) {
    if (!limits.has(joint)) continue;
    const start = recordedFrom?.[joint];
    if (start === undefined || !Number.isFinite(start) || !Number.isFinite(target)) unknownStart.add(joint);
    else {
      from[joint] = start;
      to[joint] = target;
    }
  }
  for (const r of row.resources) {
    const joint = r.startsWith("joint:") ? r.slice("joint:".length) : undefined;
    if (joint !== undefined && limits.has(joint) && targets[joint] === undefined) unknownStart.add(joint);
  }
  const segments: InFlightMotion[] = [];
  if (Object.keys(to).length > 0) segments.push({ actionId: row.actionId, from, to });
  for (const joint of unknownStart) {
    const j = limits.get(joint);
    if (j) segments.push({ actionId: row.actionId, from: { [joint]: j.min }, to: { [joint]: j.max } });
  }
  return segments;
}
