import type { Executor } from "../../src/executor/Executor.js";
import type { IntentLedger } from "../../src/ledger/IntentLedger.js";
import type { LinkLoss, LinkState, Transport } from "../../src/transport/Transport.js";

/** One arm whose link the bench can cut. `drop` resolves with the epoch ms the device is back (reachable again). */
export interface DropRig {
  readonly transport: Transport;
  readonly executor: Executor;
  readonly ledger: IntentLedger;
  /** Cuts the link (or the whole device) now; resolves with when the device answers again. */
  drop(mid: boolean): Promise<number>;
  /** A move of this arm that lasts longer than the drop takes to notice; alternated so each starts where it is not. */
  readonly moves: readonly [Record<string, number>, Record<string, number>];
  /** Motions the arm itself started so far (the simulator's effects log, the ROS double's goals): the ground truth. */
  motionStarts(): number;
}

/** What one drop came to. */
export interface DropSample {
  /** From the device answering again to the link state saying `connected`. */
  readonly backToConnectedMs: number;
  readonly loss: LinkLoss | undefined;
  /** The call in flight when the link dropped, and how it was settled (ledger state, by what). */
  readonly inFlightCall: { readonly actionId: string; readonly state: string; readonly settledBy: string } | undefined;
  /** Calls this drop sent (1 with a move in flight, else 0), and motions the arm started meanwhile, by its own record. */
  readonly callsSent: number;
  readonly armMotions: number;
}

/** Waits for a link state, or throws after `ms`. */
export function waitLink(transport: Transport, ok: (s: LinkState) => boolean, ms: number): Promise<LinkState> {
  return new Promise((resolve, reject) => {
    if (ok(transport.linkState())) return resolve(transport.linkState());
    const timer = setTimeout(() => {
      off();
      reject(new Error(`link not as expected within ${ms} ms: ${JSON.stringify(transport.linkState())}`));
    }, ms);
    const off = transport.onLinkState((s) => {
      if (!ok(s)) return;
      clearTimeout(timer);
      off();
      resolve(s);
    });
  });
}

/**
 * `count` drops, every other one with a motion in flight (started 150 ms
 * before the drop). For each: from the device being back to `connected`, the
 * loss the transport recorded (in flight, attempts, new incarnation), and how
 * the call in flight was settled once back. Nothing is asserted.
 */
export async function measureDrops(rig: DropRig, count: number): Promise<DropSample[]> {
  const samples: DropSample[] = [];
  for (let i = 0; i < count; i++) {
    const mid = i % 2 === 1;
    const startsBefore = rig.motionStarts();
    const move = rig.moves[Math.floor(i / 2) % 2]!;
    const call = mid
      ? rig.executor.execute([{ id: `drop-${i}`, name: "move_joints", args: { positions: move, speed: 0.5 } }], {
          deadlineMs: 30_000,
        })
      : undefined;
    if (mid) await new Promise((r) => setTimeout(r, 150));
    const connectedAfter = (back: number): Promise<LinkState> =>
      waitLink(rig.transport, (s) => s.state === "connected" && (s.last_loss?.returned_at ?? 0) >= back - 1, 30_000);
    const lost = waitLink(rig.transport, (s) => s.state !== "connected", 10_000);
    const back = await rig.drop(mid);
    await lost;
    const connected = await connectedAfter(back);
    const connectedAt = connected.last_loss?.returned_at ?? Date.now();
    let inFlightCall: DropSample["inFlightCall"];
    if (call) {
      const [r] = await call;
      const actionId = r && "action_id" in r.result ? r.result.action_id : undefined;
      if (actionId) {
        const row = await settledRow(rig.ledger, actionId);
        inFlightCall = { actionId, state: row?.state ?? "?", settledBy: row?.settledBy ?? "?" };
        // An operator would look; the bench says it moved part-way so the next drop starts clean.
        if (row?.state === "unknown") rig.executor.confirm(actionId, { outcome: "partial", operator: "bench" });
      }
    }
    // A while after the return: arming the servos again, or a late look, must not have moved anything.
    await new Promise((r) => setTimeout(r, 200));
    samples.push({
      backToConnectedMs: Math.max(0, connectedAt - back),
      loss: connected.last_loss,
      inFlightCall,
      callsSent: mid ? 1 : 0,
      armMotions: rig.motionStarts() - startsBefore,
    });
  }
  return samples;
}

/** The row once its call's own observation ended, and once the look after the return had its chance (an unknown may yet settle). */
async function settledRow(ledger: IntentLedger, actionId: string) {
  const until = Date.now() + 10_000;
  let unknownSince: number | undefined;
  for (;;) {
    const row = ledger.get(actionId);
    if (!row || Date.now() > until) return row;
    if (row.state === "unknown") unknownSince ??= Date.now();
    if (row.state !== "started" && (row.state !== "unknown" || Date.now() - (unknownSince ?? 0) > 3000)) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
}
