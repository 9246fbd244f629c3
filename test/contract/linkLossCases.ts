import { expect, it } from "vitest";
import type { Executor, ExecutorEvent } from "../../src/executor/Executor.js";
import type { IntentLedger } from "../../src/ledger/IntentLedger.js";
import type { LinkState, Transport } from "../../src/transport/Transport.js";
import type { ContractArm } from "./transportContract.js";

/** When, in one arm's own timing, to cut its link: moves and outages that fit its speeds and its watchdog. */
export interface LinkLossCases {
  /** An outage while nothing moves. */
  readonly idleDropMs: number;
  /** A move that ends while the link is away: cut `dropAfterMs` into it for `dropMs`. */
  readonly midMotion: {
    readonly move: Record<string, number>;
    readonly speed: number;
    readonly dropAfterMs: number;
    readonly dropMs: number;
  };
  /** A longer move the power loss cuts short: `afterMs` into it, for `outageMs`. */
  readonly powerLoss: {
    readonly move: Record<string, number>;
    readonly speed: number;
    readonly afterMs: number;
    readonly outageMs: number;
  };
}

interface Rig {
  readonly arm: ContractArm;
  readonly ledger: IntentLedger;
  readonly executor: Executor;
}

/** How long an arm that is back may take to say so: the back-off's cap (2 s) plus an attempt. */
const RETURN_MS = 8000;

/**
 * The link-loss cases of the transport contract: the same meaning on every
 * transport. A motion in flight when the link dropped is never re-sent; once
 * the arm answers again it is settled by observation (done, failed on
 * positive evidence, or unknown for an operator), its joints held until
 * then; an arm back after a power loss is a new incarnation and is armed
 * again without moving; another device answering is refused, never driven.
 * Judged by the arm's own record (the simulator's effects log, the ROS
 * double's goals), not by what the bridge says.
 */
export function linkLossCases(
  rig: () => Rig,
  moves: { readonly quickMove: Record<string, number> },
  cases: LinkLossCases | undefined,
): void {
  if (!cases) {
    it.skip("link-loss cases (skipped: this arm variant has no way to cut its link; they run on its main variant)", () =>
      undefined);
    return;
  }

  it("link loss while idle: reconnecting (attempt n, next try at …), then connected; nothing moved meanwhile; the next move runs once", async () => {
    const { arm, executor } = rig();
    const faults = arm.faults!;
    const startsBefore = arm.motionStarts();
    const seen = record(arm.transport);
    await faults.dropLink(cases.idleDropMs);
    const lost = await until(arm.transport, (s) => s.state === "reconnecting", 3000, "reconnecting");
    expect(lost.last_loss).toMatchObject({ in_flight: [], attempts: 0 });
    // A halt nobody could see is not a halt: while the link is away it says so.
    const halt = await arm.transport.halt({ signal: AbortSignal.timeout(300) });
    expect(halt.halted).toBe(false);
    const back = await until(arm.transport, (s) => s.state === "connected", RETURN_MS, "connected again");
    expect(back.last_loss?.returned_at).toBeGreaterThanOrEqual(back.last_loss?.lost_at ?? Infinity);
    expect(back.last_loss?.attempts).toBeGreaterThanOrEqual(1);
    // Every attempt was announced with its number, and a wait between attempts with when the next one is.
    const waits = seen.filter((s) => s.state === "reconnecting" && s.attempt !== undefined);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(seen.some((s) => s.state === "reconnecting" && s.next_attempt_at !== undefined)).toBe(true);
    expect(arm.motionStarts()).toBe(startsBefore);
    const [r] = await executor.execute(
      [{ id: "after-drop", name: "move_joints", args: { positions: moves.quickMove } }],
      { deadlineMs: 10_000 },
    );
    expect(r!.result.status, JSON.stringify(r!.result)).toBe("done");
    expect(arm.motionStarts()).toBe(startsBefore + 1);
    expect(arm.conflicts()).toBe(0);
  });

  it("link loss mid-motion, the arm finishing it while unreachable: never re-sent, nothing else sent, settled by observation once back (done)", async () => {
    const { arm, executor, ledger } = rig();
    const faults = arm.faults!;
    const events = collect(executor);
    const m = cases.midMotion;
    const running = executor.execute(
      [{ id: "mid", name: "move_joints", args: { positions: m.move, speed: m.speed } }],
      { deadlineMs: 20_000 },
    );
    await new Promise((r) => setTimeout(r, m.dropAfterMs));
    await faults.dropLink(m.dropMs);
    await until(arm.transport, (s) => s.state !== "connected", 3000, "the loss noticed");
    // While the link is away: a call on the same joint gets no joints (the first call holds them, observing);
    // a call on another resource (the gripper: its own server on ROS, where a controller's joints share a lock)
    // is refused with nothing sent.
    const during = await executor.execute(
      [
        { id: "same-joint", name: "move_joints", args: { positions: m.move } },
        { id: "other-joint", name: "set_gripper", args: { position: 0.4 } },
      ],
      { deadlineMs: 300 },
    );
    expect(during[0]!.result.status, JSON.stringify(during[0]!.result)).toBe("skipped");
    expect(during[1]!.result, JSON.stringify(during[1]!.result)).toMatchObject({
      status: "failed",
      error_code: "ARMB_ERR_LINK_DOWN",
    });
    const [r] = await running;
    const actionId = "action_id" in r!.result ? r!.result.action_id : "";
    expect(actionId).not.toBe("");
    await until(arm.transport, (s) => s.state === "connected", RETURN_MS, "connected again");
    // Settled by observation: at once if the link came back within the observation, else when it did.
    const settled = await untilRow(ledger, actionId, (state) => state === "done", 8000);
    expect(settled.settledBy).toBe("observation");
    expect(arm.motionStarts(), "one motion: never re-sent, nothing sent during the outage").toBe(1);
    expect(arm.conflicts()).toBe(0);
    // Every call settled exactly once.
    for (const id of ["mid", "same-joint", "other-joint"])
      expect(
        events.filter((e) => e.type === "settled" && e.callId === id),
        id,
      ).toHaveLength(1);
    expect(ledger.inState("started")).toEqual([]);
  });

  it("a power loss mid-motion: back as a new incarnation (reported), the motion settled by observation and never re-sent, armed again without moving", async () => {
    const { arm, executor, ledger } = rig();
    const faults = arm.faults!;
    const events = collect(executor);
    const p = cases.powerLoss;
    const running = executor.execute([{ id: "pl", name: "move_joints", args: { positions: p.move, speed: p.speed } }], {
      deadlineMs: 20_000,
    });
    await new Promise((r) => setTimeout(r, p.afterMs));
    await faults.powerLoss(p.outageMs);
    const back = await until(
      arm.transport,
      (s) => s.state === "connected" && s.last_loss?.incarnation_changed === true,
      RETURN_MS,
      "back as a new incarnation",
    );
    expect(back.last_loss?.returned_detail).toBeTruthy();
    const [r] = await running;
    const actionId = "action_id" in r!.result ? r!.result.action_id : "";
    expect(actionId).not.toBe("");
    // Cut short by the power loss: never "done by completion"; whatever the evidence says, by observation.
    expect(r!.result, JSON.stringify(r!.result)).not.toMatchObject({ status: "done", settled_by: "completion" });
    const row = await untilRow(ledger, actionId, (state) => state !== "started", 8000);
    expect(["unknown", "done", "failed"]).toContain(row.state);
    if (row.state !== "unknown") expect(row.settledBy).toBe("observation");
    // Reported: the link state says so, and an executor event told every listener.
    expect(events.some((e) => e.type === "link_returned" && e.loss.incarnation_changed === true)).toBe(true);
    // Armed again without moving: a while after the return, still only the one motion.
    await new Promise((r) => setTimeout(r, 500));
    expect(arm.motionStarts(), "nothing jumps when the arm is armed again").toBe(1);
    if (row.state === "unknown") executor.confirm(actionId, { outcome: "partial", operator: "contract-suite" });
    const [next] = await executor.execute(
      [{ id: "after-power", name: "move_joints", args: { positions: moves.quickMove } }],
      { deadlineMs: 10_000 },
    );
    expect(next!.result.status, JSON.stringify(next!.result)).toBe("done");
    expect(arm.motionStarts()).toBe(2);
    expect(arm.conflicts()).toBe(0);
  });

  it("another device answering where the arm was: refused with ARMB_ERR_DEVICE_REPLACED, never driven, motions refused unsent", async () => {
    const { arm, executor } = rig();
    const faults = arm.faults!;
    await faults.replaceWithOtherDevice();
    const refused = await until(
      arm.transport,
      (s) => s.error_code === "ARMB_ERR_DEVICE_REPLACED",
      RETURN_MS,
      "the other device refused",
    );
    expect(refused.state).not.toBe("connected");
    expect(refused.detail).toBeTruthy();
    const [r] = await executor.execute(
      [{ id: "to-other", name: "move_joints", args: { positions: moves.quickMove } }],
      { deadlineMs: 2000 },
    );
    expect(r!.result).toMatchObject({ status: "failed", error_code: "ARMB_ERR_LINK_DOWN" });
    // Still refused a while later: attempts go on, none drives it.
    await new Promise((r) => setTimeout(r, 1000));
    expect(arm.transport.linkState().state).not.toBe("connected");
    expect(faults.otherDeviceMotions()).toBe(0);
  });
}

function record(transport: Transport): LinkState[] {
  const seen: LinkState[] = [];
  transport.onLinkState((s) => seen.push(s));
  return seen;
}

function collect(executor: Executor): ExecutorEvent[] {
  const events: ExecutorEvent[] = [];
  executor.onEvent((e) => events.push(e));
  return events;
}

async function until(
  transport: Transport,
  ok: (s: LinkState) => boolean,
  ms: number,
  what: string,
): Promise<LinkState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = transport.linkState();
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`link not ${what} within ${ms} ms: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function untilRow(ledger: IntentLedger, actionId: string, ok: (state: string) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = ledger.get(actionId);
    if (row && ok(row.state)) return row;
    if (Date.now() > deadline)
      throw new Error(`action ${actionId} is ${row?.state ?? "missing"} after ${ms} ms: ${row?.message ?? ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
