import type { Logger } from "pino";
import { linkSignals } from "../linkSignals.js";
import type { ActionRecord } from "../Transport.js";
import { actionIdProblem } from "../../protocol/serial/index.js";
import { BOOT_LOST, type SentBootMemory } from "./SentBootMemory.js";
import type { SerialConnection } from "./SerialConnection.js";
import type { RequestTiming } from "./SerialTransportOptions.js";
import { toActionRecord } from "./StatusCache.js";

export interface SerialQueryContext {
  readonly connection: SerialConnection;
  readonly bootMemory: SentBootMemory;
  readonly timing: RequestTiming;
  readonly logger: Logger;
}

/**
 * QUERY_ACTION, read against the boots the action was sent in: a device that
 * rebooted since (seen on HELLO, STATUS or a NACK BOOT_MISMATCH) may have run
 * the action and forgotten it, so it is neither voided nor reported as
 * `moved: false` — the answer is `unknown`.
 */
export async function querySerialAction(
  context: SerialQueryContext,
  actionId: string,
  options: { voidIfUnknown: boolean; signal: AbortSignal },
): Promise<ActionRecord | undefined> {
  const { connection, bootMemory, timing } = context;
  const log = context.logger.child({ action_id: actionId });
  if (connection.state === "closed" || actionIdProblem(actionId) !== undefined) return undefined;
  if (!(await connection.waitConnected(options.signal))) return undefined;
  const sentBoot = bootMemory.bootOf(actionId);
  const bootAtAsk = connection.bootId;
  // A device that rebooted since we sent the action may have run part of it
  // and forgotten: not knowing it proves nothing, so it must not be voided.
  const memoryLost = (): boolean => sentBoot !== undefined && sentBoot !== connection.bootId;
  // Not AbortSignal.any: composed from the long-lived lifetime signal, it leaks on Node 20 (see linkSignals).
  const linked = linkSignals([options.signal, connection.lifetimeSignal]);
  const signal = linked.signal;
  try {
    const outcome = await connection.channel.request(
      { op: "QUERY_ACTION", actionId, voidIfUnknown: options.voidIfUnknown && !memoryLost() },
      { signal, ...timing, actionId },
    );
    const forgotten = (why: string): ActionRecord => ({ actionId, state: "unknown", moved: undefined, detail: why });
    const rebootedSince = (): string | undefined =>
      memoryLost() || bootAtAsk !== connection.bootId
        ? `the device rebooted since this action was sent (boot ${sentBoot === BOOT_LOST ? "refused with BOOT_MISMATCH" : (sentBoot ?? bootAtAsk ?? "?")} -> ${connection.bootId ?? "?"}); it lost its memory of it`
        : undefined;
    if (outcome.kind !== "reply") {
      log.debug({ outcome: outcome.kind }, "action query got no answer");
      // A reboot seen while the query was out (its first STATUS interrupts
      // pending requests) answers it: the device forgot the action, so the
      // reply could only have been unknown, or a void that proves nothing.
      const rebooted = outcome.kind === "interrupted" && sentBoot !== undefined ? rebootedSince() : undefined;
      return rebooted === undefined ? undefined : forgotten(rebooted);
    }
    const reply = outcome.reply;
    if (reply.op !== "ACTION" || reply.record.actionId !== actionId) {
      log.warn({ reply: reply.op }, "unexpected reply to QUERY_ACTION");
      return undefined;
    }
    const record = toActionRecord(reply.record, reply.detail);
    if (record.state !== "unknown" && record.state !== "voided") return record;
    const rebooted = rebootedSince();
    if (rebooted) return forgotten(rebooted);
    if (record.state === "voided" && (connection.device?.hello.statusRateHz ?? 0) > 0) {
      // The ACTION reply names no boot: a device that rebooted unseen (no STATUS
      // from the new boot yet) voids what it forgot. Only a STATUS that follows
      // the reply shows which boot answered; until one does, moved:false is no evidence.
      const confirmed = await connection.statuses.next(signal);
      const lost = rebootedSince();
      if (lost) return forgotten(lost);
      if (!confirmed) return forgotten("voided, but no STATUS confirmed the device had not rebooted since the send");
    }
    return record;
  } finally {
    linked.dispose();
  }
}
