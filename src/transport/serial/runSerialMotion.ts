import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import { refuseUnsendable, type AxisRange } from "../motionProblem.js";
import { FLOAT32_WIRE } from "../WireNumbers.js";
import type { ActionRecord, MotionCommand, MotionEnd } from "../Transport.js";
import type { MotionWatch } from "./MotionWatches.js";
import { actionIdProblem } from "../../protocol/serial/index.js";
import type { RequestOutcome } from "./RequestChannel.js";
import type { SentBootMemory } from "./SentBootMemory.js";
import type { SerialConnection } from "./SerialConnection.js";
import type { RequestTiming } from "./SerialTransportOptions.js";
import { toActionRecord } from "./StatusCache.js";
import { deviceText } from "../../validation/deviceText.js";

/** What a motion needs from the transport around it. */
export interface SerialMotionContext {
  readonly connection: SerialConnection;
  readonly bootMemory: SentBootMemory;
  readonly timing: RequestTiming;
  /** QUERY_ACTION after this long without the status stream mentioning the action. */
  readonly completionPollMs: number;
  /** Each axis's limits from the config (the device's, at float32). */
  readonly ranges: ReadonlyMap<string, AxisRange>;
  readonly logger: Logger;
}

/**
 * The motion state machine of the serial transport: one MOVE, re-sent byte
 * for byte only while the device has shown it has not rebooted, then watched
 * on the status stream (with QUERY_ACTION polls when the stream is silent
 * about it) until a terminal record, a refusal, a lost link or boot, or the
 * caller's signal. Never rejects.
 */
export async function runSerialMotion(
  context: SerialMotionContext,
  command: MotionCommand,
  signal: AbortSignal,
): Promise<MotionEnd> {
  const { connection, bootMemory, timing } = context;
  const { actionId } = command;
  const log = context.logger.child({ action_id: actionId });
  if (connection.state === "closed") return { kind: "link_error", error: connection.closedError() };
  if (signal.aborted) return { kind: "wait_ended" };
  const refuse = (reason: string): MotionEnd => ({
    kind: "refused",
    reason,
    error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId, reason }),
  });
  const idProblem = actionIdProblem(actionId);
  if (idProblem) return refuse(idProblem);
  const device = connection.device;
  // The boot this MOVE is addressed to: the device refuses it in any other (NACK BOOT_MISMATCH).
  const expectBootId = connection.bootId;
  // Nothing leaves while the link is not connected, and nothing the device would refuse: its
  // limits are the config's at float32 (checkHello), the precision it compares at (§3.2).
  const unsendable = refuseUnsendable(
    command,
    (axis) => (device?.axisIndex.has(axis) ? context.ranges.get(axis) : undefined),
    {
      transport: "serial",
      link: connection.lifecycle.snapshot(),
      wire: FLOAT32_WIRE,
    },
  );
  if (unsendable) return unsendable;
  if (connection.state !== "connected" || !device || expectBootId === undefined) {
    return { kind: "link_error", error: connection.notConnectedError() };
  }
  const targets = Object.entries(command.targets).map(([name, position]) => ({
    axis: device.axisIndex.get(name) ?? 0,
    position,
  }));

  return new Promise<MotionEnd>((resolve) => {
    // Aborted when this run ends for any reason: stops resends and polls for it at once.
    const run = new AbortController();
    let mentionedSincePoll = false;
    let moveAnswered = false;
    let pollInFlight = false;

    const finish = (end: MotionEnd): void => {
      if (run.signal.aborted) return;
      run.abort();
      clearInterval(pollTimer);
      signal.removeEventListener("abort", onAbort);
      connection.motions.delete(watch);
      log.debug({ end: end.kind, ...(end.kind === "ended" ? { state: end.record.state } : {}) }, "motion wait ended");
      resolve(end);
    };
    const onRecord = (record: ActionRecord): void => {
      mentionedSincePoll = true;
      switch (record.state) {
        case "unknown":
        case "executing":
          return;
        case "voided":
          finish(refuse(record.detail ?? "the action was voided before it ran"));
          return;
        case "reached":
        case "grasped":
        case "stopped":
        case "stalled":
        case "rejected":
        case "faulted":
          finish({ kind: "ended", record });
          return;
      }
    };
    const watch: MotionWatch = { actionId, onRecord, interrupt: finish };
    // The caller stopped waiting: no resend, no stop, no poll from here on.
    const onAbort = (): void => finish({ kind: "wait_ended" });

    const poll = async (): Promise<void> => {
      if (mentionedSincePoll || pollInFlight || !moveAnswered) {
        mentionedSincePoll = false;
        return;
      }
      pollInFlight = true;
      try {
        const outcome = await connection.channel.request(
          { op: "QUERY_ACTION", actionId, voidIfUnknown: false },
          { signal: run.signal, maxResends: 0, ackTimeoutMs: timing.ackTimeoutMs, actionId },
        );
        if (outcome.kind === "reply" && outcome.reply.op === "ACTION" && outcome.reply.record.actionId === actionId) {
          onRecord(toActionRecord(outcome.reply.record, outcome.reply.detail));
        }
      } finally {
        pollInFlight = false;
      }
    };

    const onMoveOutcome = (outcome: RequestOutcome): void => {
      moveAnswered = true;
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
              refuse(
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
            bootMemory.markLost(actionId);
            finish({
              kind: "link_error",
              error: new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: expectBootId, to: "a newer boot" }),
            });
          } else if (reply.op === "NACK") {
            log.info({ code: reply.code, reason: reply.reason }, "device refused the motion");
            finish(refuse(`${reply.code}: ${deviceText("the arm", reply.reason)}`));
          } else if (reply.op === "ACTION" && reply.record.actionId === actionId) {
            onRecord(toActionRecord(reply.record, reply.detail));
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
          finish(refuse(outcome.error.message));
          return;
      }
    };

    const pollTimer = setInterval(() => void poll(), context.completionPollMs);
    connection.motions.add(watch);
    signal.addEventListener("abort", onAbort, { once: true });
    bootMemory.remember(actionId, expectBootId);
    log.info({ targets: command.targets, speed: command.speed }, "sending motion");
    const { statusRateHz } = device.hello;
    // With no status stream there is nothing to wait for before a resend.
    const streaming = statusRateHz > 0;
    // A same-boot STATUS proves only that the device had not rebooted when it
    // sent it. It must also be fresh (two status periods), so a device that
    // rebooted after it would still be booting, deaf, when the resend arrives.
    const freshMs = streaming ? (2 * 1000) / statusRateHz : Infinity;
    let statusesAtSend = connection.statusCount;
    const mayResend = (): boolean => {
      if (
        streaming &&
        (connection.statusCount === statusesAtSend || performance.now() - connection.lastStatusAt > freshMs)
      )
        return false;
      statusesAtSend = connection.statusCount;
      return true;
    };
    void connection.channel
      .request(
        { op: "MOVE", actionId, expectBootId, speed: command.speed, durationMs: 0, targets },
        { signal: run.signal, ...timing, actionId, mayResend },
      )
      .then(onMoveOutcome);
  });
}
