import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { TERMINAL_ACTION_STATES } from "../../src/transport/Transport.js";
import type { BenchRig } from "./BenchRig.js";
import { groundTruthOf } from "../../firmware-sim/effectsJudge.js";

/** One move_joints call through armbridge, as the caller and the event stream saw it. */
export interface ObservedTrial {
  readonly actionId: string;
  readonly status: CallResult["status"];
  readonly settledBy: CallResult["settled_by"];
  readonly timedOut: boolean;
  /** Epoch ms (sub-ms precision) of the executor's timed_out event, when it fired. */
  readonly timedOutAt: number | undefined;
  /** Epoch ms of the executor's settled event. */
  readonly settledAt: number;
  /** Epoch ms of the executor's started event: the intent is durable and the MOVE is about to leave. */
  readonly startedAt: number | undefined;
  /** Epoch ms when the first STATUS reporting this action ended reached the bridge. */
  readonly endSeenAt: number | undefined;
}

/** Epoch ms with sub-millisecond precision, comparable with the effects log's Date.now() stamps. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * `trials` calls on one joint, one after another, each through
 * `executor.execute` with the config's move_joints timeout. Sequential on
 * purpose: the sim then draws motion times and failures in the same order
 * every run, so the same seed gives the same trials.
 */
export async function runObservedTrials(rig: BenchRig, trials: number, prefix: string): Promise<ObservedTrial[]> {
  const timedOutAt = new Map<string, number>();
  const settledAt = new Map<string, number>();
  const startedAt = new Map<string, number>();
  const endSeenAt = new Map<string, number>();
  const unsubscribe = rig.bridge.onEvent((e) => {
    if (e.type === "started") startedAt.set(e.callId, epochMs());
    if (e.type === "timed_out") timedOutAt.set(e.callId, epochMs());
    if (e.type === "settled") settledAt.set(e.callId, epochMs());
  });
  // Splits settlement lag into "the arm had not said so yet" and "the bridge took its time".
  const unwatch = rig.bridge.transport.onStatus((status) => {
    const at = epochMs();
    for (const r of status.actions)
      if (TERMINAL_ACTION_STATES[r.state] && !endSeenAt.has(r.actionId)) endSeenAt.set(r.actionId, at);
  });
  const out: ObservedTrial[] = [];
  try {
    for (let i = 0; i < trials; i++) {
      const callId = `${prefix}_${i}`;
      const [response] = await rig.bridge.executor.execute([
        { id: callId, name: "move_joints", args: { positions: { shoulder_pan: i % 2 === 0 ? 0.4 : -0.4 } } },
      ]);
      const result = response?.result;
      if (!result || !("action_id" in result) || result.action_id === undefined)
        throw new Error(`trial ${callId} came back without an action id: ${JSON.stringify(result)}`);
      out.push({
        actionId: result.action_id,
        status: result.status,
        settledBy: result.settled_by,
        timedOut: result.timed_out,
        timedOutAt: timedOutAt.get(callId),
        settledAt: settledAt.get(callId) ?? epochMs(),
        startedAt: startedAt.get(callId),
        endSeenAt: endSeenAt.get(result.action_id),
      });
      if (result.status === "unknown") await confirmAsOperator(rig, result.action_id);
    }
  } finally {
    unsubscribe();
    unwatch();
  }
  return out;
}

/**
 * An unknown quarantines the joint, so every later trial would be `blocked`.
 * The bench plays the operator: it waits for the motion to end in the effects
 * log and confirms what the log says. The unknown is still counted — this
 * only lets the remaining trials run.
 */
async function confirmAsOperator(rig: BenchRig, actionId: string): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const truth = groundTruthOf(rig.effects(), actionId);
    if (truth !== "still_running" || Date.now() > giveUpAt) {
      const row = rig.bridge.ledger.get(actionId);
      // A later status may already have settled it on its own.
      if (row?.state === "unknown")
        rig.bridge.executor.confirm(actionId, {
          outcome: truth === "reached" ? "done" : "not_done",
          operator: "seed-bench",
          note: `effects log: ${truth}`,
        });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
