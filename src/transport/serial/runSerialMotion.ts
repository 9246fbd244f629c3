import type { Logger } from "pino";
import { refuseUnsendable, type AxisRange } from "../motionProblem.js";
import { FLOAT32_WIRE } from "../WireNumbers.js";
import type { ActionRecord, MotionCommand, MotionEnd } from "../Transport.js";
import type { MotionWatch } from "./MotionWatches.js";
import { actionIdProblem } from "../../protocol/serial/index.js";
import type { SentBootMemory } from "./SentBootMemory.js";
import type { SerialConnection } from "./SerialConnection.js";
import type { ConnectedDevice } from "./checkHello.js";
import type { RequestTiming } from "./SerialTransportOptions.js";
import { toActionRecord } from "./StatusCache.js";
import { motionRefused, readMoveOutcome, recordEnd } from "./readMoveOutcome.js";

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
  const prepared = prepareMove(context, command, signal);
  if ("kind" in prepared) return prepared;
  return watchMove(context, command, signal, prepared);
}

/** A MOVE that may leave: the device it goes to, the boot it is addressed to, its wire targets. */
interface PreparedMove {
  readonly device: ConnectedDevice;
  readonly expectBootId: number;
  readonly targets: { axis: number; position: number }[];
}

/** The checks before anything leaves: the link, the caller's signal, the action id, what the device would refuse. */
function prepareMove(
  context: SerialMotionContext,
  command: MotionCommand,
  signal: AbortSignal,
): PreparedMove | MotionEnd {
  const { connection } = context;
  const { actionId } = command;
  if (connection.state === "closed") return { kind: "link_error", error: connection.closedError() };
  if (signal.aborted) return { kind: "wait_ended" };
  const idProblem = actionIdProblem(actionId);
  if (idProblem) return motionRefused(actionId, idProblem);
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
  return { device, expectBootId, targets };
}

/** Sends the MOVE and watches it until it ends. */
function watchMove(
  context: SerialMotionContext,
  command: MotionCommand,
  signal: AbortSignal,
  { device, expectBootId, targets }: PreparedMove,
): Promise<MotionEnd> {
  const { connection, bootMemory, timing } = context;
  const { actionId } = command;
  const log = context.logger.child({ action_id: actionId });
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
      const end = recordEnd(actionId, record);
      if (end) finish(end);
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

    const pollTimer = setInterval(() => void poll(), context.completionPollMs);
    connection.motions.add(watch);
    signal.addEventListener("abort", onAbort, { once: true });
    bootMemory.remember(actionId, expectBootId);
    log.info({ targets: command.targets, speed: command.speed }, "sending motion");
    const mayResend = freshStatusResendGate(connection, device.hello.statusRateHz);
    void connection.channel
      .request(
        { op: "MOVE", actionId, expectBootId, speed: command.speed, durationMs: 0, targets },
        { signal: run.signal, ...timing, actionId, mayResend },
      )
      .then((outcome) => {
        moveAnswered = true;
        readMoveOutcome(outcome, { actionId, expectBootId, bootMemory, log, onRecord, finish });
      });
  });
}

/**
 * Whether a MOVE may be sent again: only after a fresh STATUS of the same boot.
 * A same-boot STATUS proves only that the device had not rebooted when it
 * sent it. It must also be fresh (two status periods), so a device that
 * rebooted after it would still be booting, deaf, when the resend arrives.
 */
function freshStatusResendGate(connection: SerialConnection, statusRateHz: number): () => boolean {
  // With no status stream there is nothing to wait for before a resend.
  const streaming = statusRateHz > 0;
  const freshMs = streaming ? (2 * 1000) / statusRateHz : Infinity;
  let statusesAtSend = connection.statusCount;
  return () => {
    if (
      streaming &&
      (connection.statusCount === statusesAtSend || performance.now() - connection.lastStatusAt > freshMs)
    )
      return false;
    statusesAtSend = connection.statusCount;
    return true;
  };
}
