import { newActionId } from "../../src/executor/Executor.js";
import { TERMINAL_ACTION_STATES, type MotionEnd, type Transport } from "../../src/transport/Transport.js";

/**
 * THE BASELINE armbridge exists to replace — it lives in the bench only and
 * must never move into src/. A naive retry-on-timeout client: send the move,
 * wait `timeoutMs`; if the wait times out, or the device answers with an
 * error, send the same move again under a NEW action id (a naive client has
 * no idea the first one might still be running), after `backoffMs`, up to
 * `maxAttempts` in all. It talks to the transport directly: no locks, no
 * ledger, no observation.
 */
export interface NaivePolicy {
  readonly timeoutMs: number;
  readonly backoffMs: number;
  readonly maxAttempts: number;
}

export interface NaiveTrial {
  /** Every action id this one logical call used, first attempt first. */
  readonly actionIds: readonly string[];
  /** The first attempt's wait timed out. */
  readonly fired: boolean;
  /** Re-sends refused by the device because the joint was still busy with an earlier attempt. */
  readonly refusedBusy: number;
}

export async function runNaiveRetry(transport: Transport, trials: number, policy: NaivePolicy): Promise<NaiveTrial[]> {
  const out: NaiveTrial[] = [];
  for (let i = 0; i < trials; i++) {
    const targets = { shoulder_pan: i % 2 === 0 ? 0.4 : -0.4 };
    const actionIds: string[] = [];
    let fired = false;
    let refusedBusy = 0;
    for (let attempt = 0; attempt < policy.maxAttempts; attempt++) {
      if (attempt > 0 && policy.backoffMs > 0) await sleep(policy.backoffMs);
      const actionId = newActionId();
      actionIds.push(actionId);
      const end = await transport.runMotion({ actionId, targets, speed: 0.5 }, AbortSignal.timeout(policy.timeoutMs));
      if (end.kind === "wait_ended" && attempt === 0) fired = true;
      if (end.kind === "refused" && end.reason.startsWith("BUSY")) refusedBusy++;
      if (succeeded(end)) break;
    }
    out.push({ actionIds, fired, refusedBusy });
    // Not part of the policy: the bench lets every attempt finish before the
    // next trial, so trials do not collide with each other's leftovers.
    await untilAllTerminal(transport, actionIds);
  }
  return out;
}

function succeeded(end: MotionEnd): boolean {
  return end.kind === "ended" && end.record.state === "reached";
}

async function untilAllTerminal(transport: Transport, actionIds: readonly string[]): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  for (const actionId of actionIds) {
    while (Date.now() < giveUpAt) {
      const record = await transport.queryAction(actionId, { voidIfUnknown: false, signal: AbortSignal.timeout(500) });
      if (record && TERMINAL_ACTION_STATES[record.state]) break;
      await sleep(10);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
