import { describeClient, type CallClient } from "./CallClient.js";
import type { HaltSource } from "../wire/vocabulary.js";

/** One halt as the ledger keeps it: the latch is on while any halt has no `releasedAt`. */
export interface HaltRow {
  readonly haltId: string;
  /** Epoch ms the halt was sent. */
  readonly haltedAt: number;
  readonly source: HaltSource;
  /** The operator's name, when one was given (console, CLI, HTTP); for the stop tool, undefined. */
  readonly operator: string | undefined;
  /** The call id of a `stop` call. */
  readonly callId: string | undefined;
  /** The client that asked, as the actions table names them (the console under its operator, a model's `stop` under its model); undefined for the bridge's own halt. */
  readonly client?: CallClient | undefined;
  /** The axes halted; undefined for every axis. */
  readonly axes: readonly string[] | undefined;
  readonly note: string | undefined;
  /** Undefined until the arm answered: true, it reports the axes halted; false, it did not confirm (see `detail`). */
  readonly confirmed: boolean | undefined;
  readonly detail: string | undefined;
  /** The pose the arm reported after the halt. */
  readonly pose: Readonly<Record<string, number>> | undefined;
  readonly answeredAt: number | undefined;
  readonly releasedAt: number | undefined;
  readonly releasedBy: string | undefined;
  readonly releaseNote: string | undefined;
}

/** "the operator ana (console)", "a stop call (call c-7)": who halted, in words. */
export function whoHalted(h: Pick<HaltRow, "source" | "operator" | "callId" | "client">): string {
  switch (h.source) {
    case "tool":
      return `a stop call${h.callId ? ` (call ${h.callId})` : ""}${h.client ? ` from ${describeClient(h.client)}` : ""}`;
    case "presence":
      return "the bridge, because the operator's console stopped answering (operator_presence)";
    case "arm":
      return "the bridge, because the arm's own safety system stopped it";
    case "console":
    case "cli":
    case "http":
      return `${h.operator ? `the operator ${h.operator}` : "an operator"} (${h.source})`;
  }
}

/** What a sentence about the latch needs of a halt: the ledger's row and the API's view both give it. */
export interface LatchedHalt {
  readonly haltId: string;
  readonly haltedAt: number;
  /** whoHalted's words. */
  readonly who: string;
  readonly note: string | null | undefined;
  /** Undefined/null while the arm has not answered; false: it did not confirm. */
  readonly confirmed: boolean | null | undefined;
}

/**
 * The latch in one sentence, the same for a model (get_arm_state) and a
 * person (`armbridge status`): halted, by whom, since when, and what releases it.
 */
export function latchWords(h: LatchedHalt): string {
  const note = h.note ? `, note ${JSON.stringify(h.note)}` : "";
  const arm =
    h.confirmed === false
      ? " The arm did NOT confirm the halt: it may still be moving."
      : h.confirmed === true
        ? ""
        : " The arm has not answered the halt yet.";
  return (
    `The bridge is HALTED: ${h.who} halted it at ${new Date(h.haltedAt).toISOString()} (${h.haltId}${note}).${arm} ` +
    "Every motion is refused until an operator releases the halt (the console's release, or `armbridge release --operator NAME`)."
  );
}
