import { z } from "zod";
import type { MotionCommand } from "../transport/Transport.js";

/**
 * What the ledger keeps of a motion's command: what was sent to the arm, and
 * the pose it started from (`from`; null when no status had arrived, absent on
 * rows recorded before it was kept). An operator judging an unknown needs
 * both, and the console draws both.
 */
export type RecordedCommand = MotionCommand & {
  readonly from?: Readonly<Record<string, number>> | null | undefined;
  /** The speed the plan asked for, when limits.max_tool_speed_mps sent it slower (`speed` is what was sent). */
  readonly requested_speed?: number | undefined;
};

const pose = z.record(z.string(), z.number());

/** The stored shape, checked as it is read back: the file is outside the type system. Keys it does not know are kept. */
const RECORDED_COMMAND = z.looseObject({
  actionId: z.string().min(1),
  targets: pose,
  speed: z.number(),
  from: pose.nullable().optional(),
  requested_speed: z.number().optional(),
});

/** A command as read back from the ledger, or undefined when what is stored is not one (the row then has no command to observe by). */
export function parseRecordedCommand(stored: unknown): RecordedCommand | undefined {
  const parsed = RECORDED_COMMAND.safeParse(stored);
  if (!parsed.success) return undefined;
  const command: RecordedCommand = parsed.data;
  return command;
}
