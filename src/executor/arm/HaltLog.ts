import { describeClient, type CallClient } from "../../ledger/CallClient.js";

/** One halt asked of the arm through the executor (the `stop` tool, or a person's HALT: console, CLI, HTTP): when, of which axes, by whom. */
export interface HaltRecord {
  /** Epoch ms the halt was sent. */
  readonly at: number;
  /** The axes halted; undefined for every axis. */
  readonly axes: readonly string[] | undefined;
  /** The `stop` call that sent it; undefined for a person's HALT (console, CLI, HTTP), which is no call. */
  readonly callId: string | undefined;
  readonly client: CallClient | undefined;
}

/** Halts kept: enough for every motion in flight to find the one that ended it. */
const KEPT = 64;

/**
 * The recent halts, so that a motion a halt cut short is told so: its
 * settlement names who halted it and when, in the words its caller (a model)
 * reads and in the evidence an operator reads. A halt is recorded when it is
 * sent, before the arm answers: the motion's own end may be reported first.
 */
export class HaltLog {
  readonly #records: HaltRecord[] = [];

  record(halt: HaltRecord): void {
    this.#records.push(halt);
    if (this.#records.length > KEPT) this.#records.shift();
  }

  /** The newest halt sent at or after `since` that covers any of `axes`. */
  latestSince(since: number, axes: readonly string[]): HaltRecord | undefined {
    for (let i = this.#records.length - 1; i >= 0; i--) {
      const h = this.#records[i] as HaltRecord;
      if (h.at < since) return undefined;
      if (h.axes === undefined || h.axes.some((a) => axes.includes(a))) return h;
    }
    return undefined;
  }
}

/** "a halt was sent while it ran: HALT from console ana at 2026-12-01T12:03:04.120Z, of all axes" (or "stop (call c-7) from agent …"). */
export function haltWords(h: HaltRecord): string {
  const who = h.client ? ` from ${describeClient(h.client)}` : "";
  const axes = h.axes === undefined ? "all axes" : h.axes.join(", ");
  const what = h.callId === undefined ? "HALT" : `stop (call ${h.callId})`;
  return `a halt was sent while it ran: ${what}${who} at ${new Date(h.at).toISOString()}, of ${axes}`;
}
