import type { ActionRow, Evidence, SettledBy } from "../../ledger/ActionRow.js";
import { poseOf } from "../../transport/poseOf.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { ActionRecord, ArmStatus, Transport } from "../../transport/Transport.js";
import { whoHalted } from "../../ledger/HaltRow.js";
import { haltWords, type HaltRecord } from "../arm/HaltLog.js";
import type { Quarantine } from "../arm/Quarantine.js";
import { settlementMessage } from "../calls/settlementMessage.js";
import { STATE_OF_VERDICT, type Verdict } from "./Verdict.js";

/** How a verdict was arrived at, and what it was based on. */
export interface SettlementContext {
  /** `completion`: the arm's own terminal report while we waited; `observation`: looking at the arm afterwards. */
  readonly by: "completion" | "observation";
  readonly timedOut: boolean;
  readonly record?: ActionRecord | undefined;
  /** The status the verdict was judged on; the transport's latest when omitted. */
  readonly status?: ArmStatus | undefined;
  readonly notes: readonly string[];
  /** A halt sent while the motion ran: named in the model's words and in the evidence. */
  readonly halt?: HaltRecord | undefined;
}

export interface ActionSettlerDeps {
  readonly ledger: IntentLedger;
  readonly quarantine: Quarantine;
  readonly transport: Transport;
  readonly log: Logger;
  readonly now: () => number;
  /** Told when an action that was `unknown` is settled (by a later observation). */
  readonly onResolved: (row: ActionRow) => void;
}

/**
 * The one settlement path. Whatever judged a motion — its completion, an
 * observation after a timeout, start-up reconciliation, a later status — the
 * ledger state, the evidence and the words a model reads are derived here
 * from one `Verdict`, written once, and the quarantine follows the row.
 */
export class ActionSettler {
  readonly #deps: ActionSettlerDeps;

  constructor(deps: ActionSettlerDeps) {
    this.#deps = deps;
  }

  settle(actionId: string, verdict: Verdict, ctx: SettlementContext): ActionRow {
    const { ledger, quarantine, log } = this.#deps;
    const before = ledger.get(actionId);
    const status = ctx.status ?? this.#deps.transport.latestStatus();
    const halted = ctx.halt ? haltWords(ctx.halt) : undefined;
    const evidence: Evidence = {
      pose: poseOf(status),
      poseStampMs: status?.stampMs,
      record: ctx.record,
      notes: halted ? [...ctx.notes, halted] : ctx.notes,
    };
    const state = STATE_OF_VERDICT[verdict.kind];
    // A halt a person asked for settles by the operator; a model's own stop by the arm's report of it.
    const settledBy: SettledBy =
      state === "unknown" ? "none" : verdict.kind === "halted" && verdict.halt.source !== "tool" ? "operator" : ctx.by;
    const evidencePose = evidence.pose;
    const message = settlementMessage({
      tool: before?.tool ?? "motion",
      actionId,
      resources: before?.resources ?? [],
      verdict,
      by: ctx.by,
      timedOut: ctx.timedOut,
      pose: evidencePose,
      targets: before?.command?.targets,
      // A halted verdict's own words already name who halted it (from the latch's record).
      halted: verdict.kind === "halted" ? undefined : halted,
    });
    const operator = verdict.kind === "halted" ? (verdict.halt.operator ?? whoHalted(verdict.halt)) : undefined;
    const notes =
      verdict.kind === "halted"
        ? [
            ...(evidence.notes ?? []),
            `halted by ${whoHalted(verdict.halt)} (${verdict.halt.haltId}); the arm confirmed the halt`,
          ]
        : evidence.notes;
    const row = ledger.settle(
      actionId,
      { state, timedOut: ctx.timedOut, settledBy, message, evidence: { ...evidence, notes }, operator },
      this.#deps.now(),
    );
    quarantine.update(row);
    if (row.state === "unknown")
      log.warn(
        { action_id: actionId, resources: row.resources },
        "action unknown: its resources are quarantined until an operator confirms",
      );
    if (before?.state === "unknown" && row.state !== "unknown") {
      log.info({ action_id: actionId, state: row.state }, "unknown action settled by a later observation");
      this.#deps.onResolved(row);
    }
    return row;
  }
}
