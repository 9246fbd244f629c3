import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import type { ActionRecord, MotionEnd } from "../Transport.js";
import type { RequestOutcome } from "./RequestChannel.js";
import type { SentBootMemory } from "./SentBootMemory.js";
import { toActionRecord } from "./StatusCache.js";
import { deviceText } from "../../validation/deviceText.js";

/** A motion the device refused: nothing of it ran. */
export function motionRefused(actionId: string, reason: string): MotionEnd {
  return { kind: "refused", reason, error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId, reason }) };
}

/** The running motion a MOVE's outcome is read into. */
export interface MoveOutcomeReader {
  readonly actionId: string;
  /** The boot the MOVE was addressed to. */
  readonly expectBootId: number;
  readonly bootMemory: SentBootMemory;
  readonly log: Logger;
  readonly onRecord: (record: ActionRecord) => void;
  readonly finish: (end: MotionEnd) => void;
}

/**
 * What the answer to a MOVE means for its motion: a refusal, a record, a lost
 * boot, or nothing yet (the status stream and the polls will tell).
 */
export function readMoveOutcome(outcome: RequestOutcome, motion: MoveOutcomeReader): void {
  const { actionId, expectBootId, log, finish } = motion;
  switch (outcome.kind) {
    case "reply": {
      const reply = outcome.reply;
      if (reply.op === "NACK" && reply.code === "BOOT_MISMATCH" && outcome.sends === 1) {
        // The only copy ever sent was refused by the new boot: nothing ran, anywhere.
        log.warn(
          { expectBootId, reason: reply.reason },
          "device refused the MOVE: it rebooted before the only copy arrived",
        );
        finish(
          motionRefused(
            actionId,
            `BOOT_MISMATCH: ${deviceText("the arm", reply.reason)} (the device rebooted before the command arrived; it was not run)`,
          ),
        );
      } else if (reply.op === "NACK" && reply.code === "BOOT_MISMATCH") {
        // This copy did nothing, but an earlier copy may have run before
        // the reboot and been forgotten: the outcome is unknown, never refused.
        log.warn(
          { expectBootId, reason: reply.reason },
          "device refused the MOVE: it is no longer in the boot it was sent to",
        );
        motion.bootMemory.markLost(actionId);
        finish({
          kind: "link_error",
          error: new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: expectBootId, to: "a newer boot" }),
        });
      } else if (reply.op === "NACK") {
        log.info({ code: reply.code, reason: reply.reason }, "device refused the motion");
        finish(motionRefused(actionId, `${reply.code}: ${deviceText("the arm", reply.reason)}`));
      } else if (reply.op === "ACTION" && reply.record.actionId === actionId) {
        motion.onRecord(toActionRecord(reply.record, reply.detail));
      } else {
        log.warn({ reply: reply.op }, "unexpected reply to MOVE; watching the status stream");
      }
      return;
    }
    case "no_reply":
      // The MOVE may or may not have arrived; the status stream and
      // QUERY_ACTION polls will tell. Sending it again is not an option.
      log.warn({ sends: outcome.sends }, "no reply to MOVE; watching the status stream");
      return;
    case "aborted":
      return;
    case "interrupted":
      finish({ kind: "link_error", error: outcome.error });
      return;
    case "unsendable":
      finish(motionRefused(actionId, outcome.error.message));
      return;
  }
}

/** The end an action record brings its motion to, or undefined while it has not ended. */
export function recordEnd(actionId: string, record: ActionRecord): MotionEnd | undefined {
  switch (record.state) {
    case "unknown":
    case "executing":
      return undefined;
    case "voided":
      return motionRefused(actionId, record.detail ?? "the action was voided before it ran");
    case "reached":
    case "grasped":
    case "stopped":
    case "stalled":
    case "rejected":
    case "faulted":
      return { kind: "ended", record };
  }
}
