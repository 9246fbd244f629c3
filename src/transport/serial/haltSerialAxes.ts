import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import { linkSignals } from "../linkSignals.js";
import type { ArmStatus, HaltResult } from "../Transport.js";
import type { SerialConnection } from "./SerialConnection.js";
import type { RequestTiming } from "./SerialTransportOptions.js";
import { deviceText } from "../../validation/deviceText.js";

export interface SerialHaltContext {
  readonly connection: SerialConnection;
  readonly timing: RequestTiming;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * STOP on these axes (all when omitted), re-sent freely since STOP is
 * idempotent, then the first STATUS after the ACK as the observed result.
 * Waits for a connection (a reconnecting link) until `signal`. Never rejects.
 */
export async function haltSerialAxes(
  context: SerialHaltContext,
  options: { axes?: readonly string[]; signal: AbortSignal },
): Promise<HaltResult> {
  const { connection, timing } = context;
  const latest = (): ArmStatus | undefined => connection.statuses.latest();
  if (connection.state === "closed") return { halted: false, status: latest(), error: connection.closedError() };
  const device = (await connection.waitConnected(options.signal)) ? connection.device : undefined;
  if (!device) return { halted: false, status: latest(), error: connection.notConnectedError() };
  const axes: number[] = [];
  for (const name of options.axes ?? []) {
    const index = device.axisIndex.get(name);
    if (index === undefined) {
      return {
        halted: false,
        status: latest(),
        error: new ArmbridgeError("ARMB_ERR_ARGS_INVALID", { tool: "halt", issues: `the device has no axis ${name}` }),
      };
    }
    axes.push(index);
  }
  const linked = linkSignals([options.signal, connection.lifetimeSignal]);
  const signal = linked.signal;
  const startedMs = context.now();
  // Subscribe before sending so the first status after the ACK cannot slip by.
  const statusAfterAck = new AbortController();
  let acked = false;
  let observed: ArmStatus | undefined;
  const unsubscribe = connection.statuses.subscribe((status) => {
    if (acked && !observed) {
      observed = status;
      statusAfterAck.abort();
    }
  });
  try {
    // STOP is idempotent, so re-sending it is always safe.
    const outcome = await connection.channel.request({ op: "STOP", axes }, { signal, ...timing });
    if (outcome.kind !== "reply") {
      const error =
        outcome.kind === "aborted"
          ? new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", { op: "STOP", ms: context.now() - startedMs })
          : outcome.error;
      return { halted: false, status: latest(), error };
    }
    if (outcome.reply.op === "NACK") {
      return {
        halted: false,
        status: latest(),
        error: new ArmbridgeError("ARMB_ERR_DEVICE_NACK", {
          op: "STOP",
          seq: outcome.reply.ackSeq,
          reason: deviceText("the arm", outcome.reply.reason),
        }),
      };
    }
    acked = true;
    context.logger.info({ axes: options.axes ?? "all" }, "halt acknowledged");
    await new Promise<void>((resolve) => {
      const any = AbortSignal.any([signal, statusAfterAck.signal]);
      if (any.aborted) resolve();
      else any.addEventListener("abort", () => resolve(), { once: true });
    });
    return { halted: true, status: observed };
  } finally {
    unsubscribe();
    linked.dispose();
  }
}
