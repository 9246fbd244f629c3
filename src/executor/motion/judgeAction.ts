import type { ObserveFn, ObserveInput } from "../toolContract/ToolDefinition.js";
import { TERMINAL_ACTION_STATES } from "../../transport/Transport.js";
import type { Verdict } from "./Verdict.js";

/**
 * One look at an action, gated by one rule: no verdict may release the
 * action's joints while the arm could still start it. The arm can start a
 * command it has never heard of, if a delayed copy arrives, unless it has
 * restarted since the send (a command addressed to an earlier incarnation is
 * refused: the serial MOVE carries the boot id it was meant for).
 *
 * So a pose at the target settles nothing on its own: the arm must first
 * account for the id — its record (reached, or any end), or its answer to a
 * void request — and a voided id whose target pose holds is said as such:
 * the command never ran.
 */
export type Judgement =
  | {
      readonly kind: "settled";
      readonly verdict: Exclude<Verdict, { kind: "undetermined" }>;
      readonly notes: readonly string[];
    }
  /** The arm shows the action under way (moving, or its record says executing): it will end; be patient. */
  | { readonly kind: "running"; readonly notes: readonly string[] }
  /** Nothing conclusive yet (including a target pose the arm has not yet accounted for). */
  | { readonly kind: "waiting"; readonly notes: readonly string[] };

export interface JudgeOptions {
  /**
   * The arm's incarnation changed since the send: it can no longer start the
   * command, and its not knowing the id proves nothing about whether it ran.
   */
  readonly armRestarted: boolean;
}

export function judgeAction(observe: ObserveFn, input: ObserveInput, options: JudgeOptions): Judgement {
  const o = observe(input);
  const record = input.record;
  const ended = record !== undefined && TERMINAL_ACTION_STATES[record.state];
  const unaccounted =
    "the arm has not yet accounted for this action id (a delayed copy could still start), so the pose alone settles nothing";
  switch (o.verdict) {
    case "reached":
      if (record?.state === "voided") return targetHolds(o.notes, "never");
      if (ended)
        return {
          kind: "settled",
          verdict: { kind: "reached", ...(o.detail ? { detail: o.detail } : {}) },
          notes: o.notes,
        };
      if (record?.state === "executing") return { kind: "running", notes: o.notes };
      if (options.armRestarted) return targetHolds(o.notes, "unknowable");
      return { kind: "waiting", notes: [...o.notes, unaccounted] };
    case "not_moved": {
      if (!ended && !options.armRestarted) return { kind: "waiting", notes: [...o.notes, unaccounted] };
      if (record?.state === "voided" && observe({ ...input, record: undefined }).verdict === "reached")
        return targetHolds(o.notes, "never");
      return {
        kind: "settled",
        verdict: { kind: "not_moved", reason: o.notes.join("; ") || "the arm reports no motion" },
        notes: o.notes,
      };
    }
    case "interrupted":
      return { kind: "settled", verdict: { kind: "interrupted", detail: o.notes.join("; ") }, notes: o.notes };
    case "in_progress":
      return { kind: "running", notes: o.notes };
    case "no_evidence":
      return { kind: "waiting", notes: o.notes };
  }
}

function targetHolds(notes: readonly string[], ran: "never" | "unknowable"): Judgement {
  const why =
    ran === "never"
      ? "the arm voided this action id: the command never ran and never will; the axes were already at the target"
      : "the arm restarted since the send, so this command can no longer start, and whether it ran before cannot be told";
  return { kind: "settled", verdict: { kind: "target_holds", ran }, notes: [...notes, why] };
}
