import type { ActionRecord, MotionEnd } from "../../transport/Transport.js";
import type { CallResult } from "../calls/CallResult.js";
import type { HaltLog } from "../arm/HaltLog.js";
import { servosShutDown } from "./motionGates.js";
import type { MotionCall, MotionDeps } from "./MotionStage.js";
import { observeUntilSettled, type ObserveOutcome } from "./observeUntilSettled.js";
import { paceWords } from "./reportPace.js";
import { resultFromRow } from "../calls/resultFromRow.js";
import { resultMessages } from "../calls/resultMessages.js";
import { sameIncarnation } from "./sameIncarnation.js";
import type { Verdict } from "./Verdict.js";

/** The newest halt sent since this motion left that covers its axes, looked up when its verdict is written. */
function haltSince(call: MotionCall, d: MotionDeps): ReturnType<HaltLog["latestSince"]> {
  return d.arm.haltLog.latestSince(call.sentAt, Object.keys(call.command!.targets));
}

/**
 * The motion's end, settled: by the arm's own report when it gave one, else by
 * observing the arm. An end the arm reported is settled synchronously.
 */
export function settleStage(call: MotionCall, d: MotionDeps): CallResult | Promise<CallResult> {
  const command = call.command!;
  const end = call.end!;
  if (end.kind !== "ended" && end.kind !== "refused" && d.shutdown.aborted)
    return leftForReconciliation(command.actionId, call.tool.name, call.resources, d);
  let initialRecord: ActionRecord | undefined;
  switch (end.kind) {
    case "ended": {
      const settled = settleEnded(call, d, end);
      if (settled) return settled;
      initialRecord = end.record;
      break;
    }
    case "refused":
      return settleRefused(call, d, end);
    case "wait_ended":
      call.log!.info(
        { budget_ms: call.budgetMs, wait_end: call.waitEnd ?? "run ended" },
        "wait ended by timeout; the motion is not stopped and not re-sent; observing",
      );
      d.emit({
        type: "timed_out",
        callId: call.callId,
        tool: call.tool.name,
        actionId: command.actionId,
        client: call.client,
      });
      break;
    case "link_error":
      call.log!.warn({ err: end.error.toJSON() }, "link failed while waiting; observing");
      break;
  }
  return settleByObservation(call, d, initialRecord, end.kind === "wait_ended");
}

/**
 * The arm's terminal report: a record that can no longer start again. Undefined when it shows no end yet; a
 * promise only where a halt's answer may explain an interruption.
 */
function settleEnded(
  call: MotionCall,
  d: MotionDeps,
  end: Extract<MotionEnd, { kind: "ended" }>,
): CallResult | Promise<CallResult> | undefined {
  const command = call.command!;
  const o = call.tool.observe({
    command,
    config: d.config,
    status: d.transport.latestStatus(),
    record: end.record,
    nowMs: d.now(),
  });
  const ctx = {
    by: "completion",
    timedOut: false,
    record: end.record,
    notes: o.notes,
    halt: haltSince(call, d),
  } as const;
  switch (o.verdict) {
    case "reached":
      return resultFromRow(
        d.settler.settle(command.actionId, { kind: "reached", ...(o.detail ? { detail: o.detail } : {}) }, ctx),
      );
    case "not_moved":
      return resultFromRow(d.settler.settle(command.actionId, { kind: "not_moved", reason: o.notes.join("; ") }, ctx));
    case "interrupted":
      return haltExplains({ kind: "interrupted", detail: o.notes.join("; ") }, call.sentAt, d).then((verdict) =>
        resultFromRow(d.settler.settle(command.actionId, verdict, ctx)),
      );
    case "in_progress":
    case "no_evidence":
      return undefined;
  }
}

function settleRefused(call: MotionCall, d: MotionDeps, end: Extract<MotionEnd, { kind: "refused" }>): CallResult {
  const command = call.command!;
  const row = resultFromRow(
    d.settler.settle(
      command.actionId,
      // The transport's own refusal (the link dropped between admission and sending) is not the arm's.
      {
        kind: "not_moved",
        reason: end.error.code === "ARMB_ERR_LINK_DOWN" ? end.reason : `the arm refused it (${end.reason})`,
      },
      {
        by: "completion",
        timedOut: false,
        notes: [end.reason],
        record: { actionId: command.actionId, state: "rejected", moved: false, detail: end.reason },
        halt: haltSince(call, d),
      },
    ),
  );
  // A servo that shut down between admission and sending: the row says nothing moved, the model is told to wait for its recovery.
  return end.error.code === "ARMB_ERR_SERVO_TRIPPED" ? (servosShutDown(call, d, command.targets) ?? row) : row;
}

async function settleByObservation(
  call: MotionCall,
  d: MotionDeps,
  initialRecord: ActionRecord | undefined,
  timedOut: boolean,
): Promise<CallResult> {
  const command = call.command!;
  const clock = call.clock!;
  const outcome = await observeUntilSettled({
    transport: d.transport,
    observe: call.tool.observe,
    command,
    config: d.config,
    initialRecord,
    mayVoid: sameIncarnation(call.armIncarnation, d.transport.identity?.incarnation()),
    signal: d.shutdown,
    now: d.now,
    clock,
  });
  call.log!.info({ verdict: outcome.verdict.kind, observed_ms: outcome.waitedMs }, "observation finished");
  if (outcome.verdict.kind === "undetermined" && d.shutdown.aborted)
    return leftForReconciliation(command.actionId, call.tool.name, call.resources, d);
  const verdict = await haltExplains(judged(call, outcome, timedOut), call.sentAt, d);
  return resultFromRow(
    d.settler.settle(command.actionId, verdict, {
      by: "observation",
      timedOut,
      record: outcome.record,
      status: outcome.status,
      notes: outcome.notes,
      halt: haltSince(call, d),
    }),
  );
}

/** An observation that could not conclude, in words that say why: a pause, a timeout, or a failed link. */
function judged(call: MotionCall, outcome: ObserveOutcome, timedOut: boolean): Verdict {
  if (outcome.verdict.kind !== "undetermined") return outcome.verdict;
  const clock = call.clock!;
  const pace = clock.pace();
  const paused = outcome.pausedForMs !== undefined || call.waitEnd === "paused";
  return {
    kind: "undetermined" as const,
    why: paused
      ? `the arm is ${pace ? paceWords(pace) : "paused"} and has been for ${Math.round((clock.pausedForMs() ?? 0) / 1000)} s: the motion stands where it stopped and goes on when it is resumed (a pause is neither a timeout nor a failure)`
      : timedOut
        ? `our wait timed out after ${call.budgetMs} ms of the arm's time${pace && pace.factor < 0.95 ? ` (it was ${paceWords(pace)})` : ""} (a timeout is not a failure) and observing the arm for ${outcome.waitedMs} ms was inconclusive`
        : "the link failed and observing the arm was inconclusive",
  };
}

/**
 * A motion that moved and ended short of its target while a halt sent after
 * it started was open: once the arm confirmed that halt, the halt explains
 * it — it stopped where the arm reports it, by the halt (`halted`), and no
 * one need be asked. A halt the arm did not confirm explains nothing: the
 * verdict stands (`unknown`, joints quarantined).
 */
async function haltExplains(verdict: Verdict, sentAt: number, d: MotionDeps): Promise<Verdict> {
  if (verdict.kind !== "interrupted") return verdict;
  const answer = d.arm.halts.answerSince(sentAt);
  if (!answer) return verdict;
  const halt = await answer;
  return halt.confirmed === true ? { kind: "halted", halt } : verdict;
}

/**
 * The bridge is shutting down while this motion may still run: the row is
 * left `started`, like a crash, so the next start reconciles it against the
 * arm instead of an operator having to.
 */
function leftForReconciliation(
  actionId: string,
  toolName: string,
  resources: readonly string[],
  d: MotionDeps,
): CallResult {
  d.log.warn({ action_id: actionId }, "shutting down mid-motion: left started, to be reconciled at the next start");
  return {
    status: "unknown",
    action_id: actionId,
    resources,
    message: resultMessages.unknown(
      toolName,
      actionId,
      "the bridge shut down while the motion was under way; it will be checked against the arm when the bridge starts again",
      resources,
    ),
    timed_out: false,
    settled_by: "none",
  };
}
