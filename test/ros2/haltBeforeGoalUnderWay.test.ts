import { describe, expect, it } from "vitest";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { configWith, ended, jtc, useRos2Double } from "./ros2OnDoubleHarness.js";

const { start } = useRos2Double();

describe("Ros2Transport halted before its goal is under way", () => {
  it("halt while our goal request is still unanswered: the goal, once accepted, is cancelled (the arm does not go on to its target)", async () => {
    const o = await start({ halt_own_goals: "cancel" }, { responseDelayMs: 150 });
    const running = o.transport.runMotion(
      { actionId: "h1", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    // The goal request is on the wire: the controller has not answered yet.
    await new Promise((r) => setTimeout(r, 20));
    expect(jtc(o).goals).toHaveLength(0);
    const halt = await o.transport.halt({ signal: AbortSignal.timeout(3000) });
    expect(halt.error).toBeUndefined();
    const record = ended(await running);
    expect(record.state).toBe("stopped");
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.CANCELED);
  });

  it("halt while a motion still waits for its action server: that goal is never sent (refused), even when the server comes back", async () => {
    const o = await start({ server_wait_ms: 3000 });
    const server = jtc(o);
    server.alive = false;
    const running = o.transport.runMotion(
      { actionId: "w1", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await new Promise((r) => setTimeout(r, 20));
    const halt = await o.transport.halt({ signal: AbortSignal.timeout(500) });
    expect(halt.error).toBeUndefined();
    server.alive = true;
    const end = await running;
    expect(end.kind).toBe("refused");
    expect(server.received).toHaveLength(0);
  });

  it("moved: false is never concluded from a /joint_states sample taken before the goal ended", async () => {
    // A joint_states stream that pauses (but is not yet stale) while the arm moves under our goal.
    const o = await start(
      { halt_own_goals: "cancel" },
      {},
      configWith((raw) => (raw.stale_after_ms = 5000)),
    );
    o.double.world.stopJointStates();
    const running = o.transport.runMotion(
      { actionId: "m1", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    const from = o.double.world.position("elbow");
    while (Math.abs(o.double.world.position("elbow") - from) < 0.05) await new Promise((r) => setTimeout(r, 10));
    await o.transport.halt({ signal: AbortSignal.timeout(300) });
    // The goal has ended (cancelled: the result goes out on the controller's next goal-handle timer tick)
    // while no sample was measured since before it started.
    while (jtc(o).goals[0]!.status === GOAL_STATUS.CANCELING) await new Promise((r) => setTimeout(r, 10));
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.CANCELED);
    const duringPause = await o.transport.queryAction("m1", { voidIfUnknown: false, signal: AbortSignal.timeout(100) });
    // "false" here would tell the executor "failed, nothing moved, re-run is safe"; the arm did move.
    expect(duringPause?.moved).toBeUndefined();
    o.double.world.resumeJointStates();
    const record = ended(await running);
    expect(record).toMatchObject({ state: "stopped", moved: true });
  });
});
