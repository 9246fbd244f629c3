import type { BridgeSession } from "./BridgeSession.js";
import type { CallPlanner, CallRecord } from "./CallPlanner.js";
import type { ResendRecord } from "./judgeCrashLoop.js";

/**
 * Earlier call ids again, in one batch: lost answers with the same
 * arguments, answered ones with the same or other arguments (seeded). Each
 * answer is recorded in `resends` for the judge: a recorded call must come
 * back as its recorded result, another call under its id as rejected.
 */
export async function resendEarlier(
  planner: CallPlanner,
  session: BridgeSession,
  random: () => number,
  resends: ResendRecord[],
): Promise<void> {
  const calls = [...planner.calls.values()].filter((c) => !c.probe);
  const batch: { record: CallRecord; kind: ResendRecord["kind"]; args: CallRecord["args"] }[] = [];
  const lost = calls.filter((c) => !c.answered && !c.resentAfterLoss);
  for (const c of lost.slice(0, 2)) batch.push({ record: c, kind: "same_args", args: c.args });
  const recorded = calls.filter((c) => c.knownActionId !== undefined && !batch.some((b) => b.record === c));
  if (recorded.length > 0 && random() < 0.4) {
    const c = planner.pick(recorded);
    const [joint, p] = Object.entries(c.args.positions)[0]!;
    batch.push({
      record: c,
      kind: "other_args",
      args: { ...c.args, positions: { ...c.args.positions, [joint]: Number((p > 0 ? p - 0.1 : p + 0.1).toFixed(3)) } },
    });
  }
  const others = recorded.filter((c) => !batch.some((b) => b.record === c));
  if (others.length > 0 && random() < 0.3) {
    const c = planner.pick(others);
    batch.push({ record: c, kind: "same_args", args: c.args });
  }
  if (batch.length === 0) return;
  const knownBefore = batch.map((b) => b.record.knownActionId);
  const outcome = await session.post(
    batch.map((b) => ({ id: b.record.id, name: "move_joints", args: b.args })),
    15_000,
  );
  if (outcome.kind === "lost") throw new Error(`re-send batch lost without a kill: ${outcome.reason}`);
  batch.forEach((b, i) => {
    const result = outcome.results[i]!;
    const actionId = "action_id" in result && typeof result.action_id === "string" ? result.action_id : undefined;
    resends.push({
      callId: b.record.id,
      kind: b.kind,
      knownActionId: knownBefore[i],
      status: result.status,
      replayed: result.replayed === true,
      errorCode: "error_code" in result ? result.error_code : undefined,
      actionId,
    });
    if (!b.record.answered) b.record.resentAfterLoss = true;
    if (b.kind === "same_args") {
      b.record.answered = true;
      b.record.knownActionId ??= actionId;
    }
  });
}
