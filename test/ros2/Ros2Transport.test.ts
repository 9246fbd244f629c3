import { describe, expect, it } from "vitest";
import { resourcesFor } from "../../src/config/actuators.js";
import type { Ros2Feedback } from "../../src/transport/ros2/Ros2TransportDeps.js";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { configWith, ended, JOINTS, JTC, jtc, until, useRos2Double } from "./ros2OnDoubleHarness.js";

const { start } = useRos2Double();

describe("Ros2Transport on the rclnodejs double", () => {
  it("reports /joint_states as status: every axis, gripper on its 0..1 scale, a wall-clock stamp", async () => {
    const o = await start();
    const s = o.transport.latestStatus()!;
    expect(Object.keys(s.axes).sort()).toEqual([...JOINTS, "gripper"].sort());
    expect(s.axes.elbow!.position).toBeCloseTo(1.0, 9);
    expect(s.axes.gripper!.position).toBeCloseTo(1.0, 9);
    expect(Math.abs(Date.now() - s.stampMs)).toBeLessThan(1000);
    expect(o.transport.config.arm.controllers).toEqual([{ name: "joint_trajectory_controller", joints: JOINTS }]);
    expect(resourcesFor(o.transport.config, ["elbow"])).toEqual([
      "controller:joint_trajectory_controller",
      "joint:elbow",
    ]);
  });

  it("sends one absolute goal naming every joint, untouched joints held, zero final velocity, nonzero goal time", async () => {
    const o = await start();
    const end = await o.transport.runMotion(
      { actionId: "a1", targets: { shoulder_pan: 0.3 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    const record = ended(end);
    expect(record).toMatchObject({ actionId: "a1", state: "reached", moved: true });
    const goal = jtc(o).received[0] as {
      trajectory: {
        joint_names: string[];
        points: Array<{ positions: number[]; velocities: number[]; time_from_start: { sec: number; nanosec: number } }>;
      };
      goal_tolerance: Array<{ name: string; position: number }>;
      goal_time_tolerance: { sec: number; nanosec: number };
    };
    expect(jtc(o).received).toHaveLength(1);
    expect(goal.trajectory.joint_names).toEqual(JOINTS);
    const last = goal.trajectory.points.at(-1)!;
    expect(last.positions[0]).toBe(0.3);
    expect(last.positions.slice(1).map((p) => Number(p.toFixed(6)))).toEqual([-0.5, 1.0, -0.5, 0.0, 0.0]);
    expect(last.velocities).toEqual([0, 0, 0, 0, 0, 0]);
    expect(last.time_from_start.sec + last.time_from_start.nanosec / 1e9).toBeCloseTo(2 * Math.sqrt(0.3 / 6), 6);
    expect(goal.goal_tolerance.map((t) => t.name)).toEqual(JOINTS);
    expect(goal.goal_tolerance.every((t) => t.position === 0.01)).toBe(true);
    expect(goal.goal_time_tolerance.sec + goal.goal_time_tolerance.nanosec).toBeGreaterThan(0);
    expect(o.transport.latestStatus()!.axes.shoulder_pan!.position).toBeCloseTo(0.3, 2);
    expect(
      await o.transport.queryAction("a1", { voidIfUnknown: false, signal: AbortSignal.timeout(100) }),
    ).toMatchObject({ state: "reached" });
  });

  it("judges a cancelled goal by its status: CANCELED with error_code 0 is stopped, not reached", async () => {
    const o = await start({ halt_own_goals: "cancel" });
    const running = o.transport.runMotion(
      { actionId: "c1", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.elbow!.position < 0.8);
    const halt = await o.transport.halt({ signal: AbortSignal.timeout(2000) });
    expect(halt.halted).toBe(true);
    expect(halt.status!.axes.elbow!.moving).toBe(false);
    const record = ended(await running);
    expect(record.state).toBe("stopped");
    expect(record.moved).toBe(true);
    expect(record.detail).toMatch(/status 5, error_code 0/);
    const sim = jtc(o).goals[0]!;
    expect(sim.status).toBe(GOAL_STATUS.CANCELED);
    expect(sim.result).toMatchObject({ error_code: 0 });
  });

  it.each([
    ["jazzy", GOAL_STATUS.ABORTED],
    ["humble", GOAL_STATUS.CANCELED],
  ] as const)("a goal preempted by another client's goal (%s) ends stopped", async (distro, status) => {
    const o = await start({}, { distro });
    const running = o.transport.runMotion(
      { actionId: "p1", targets: { wrist_1: 1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.wrist_1!.moving);
    const here = o.transport.latestStatus()!;
    o.double.world.sendForeignGoal("joint_trajectory_controller", {
      trajectory: {
        joint_names: JOINTS,
        points: [
          {
            positions: JOINTS.map((j) => here.axes[j]!.position),
            velocities: [],
            time_from_start: { sec: 0, nanosec: 200_000_000 },
          },
        ],
      },
    });
    const record = ended(await running);
    expect(jtc(o).goals[0]!.status).toBe(status);
    expect(record.state).toBe("stopped");
  });

  it("a rejected goal is refused: nothing moved", async () => {
    // The controller really drives a seventh joint the arm config does not know, so our goal is partial.
    const o = await start(
      {},
      {
        controllers: [{ name: "joint_trajectory_controller", actionName: JTC, joints: [...JOINTS, "linear_rail"] }],
        positions: {
          shoulder_pan: 0,
          shoulder_lift: -0.5,
          elbow: 1,
          wrist_1: -0.5,
          wrist_2: 0,
          wrist_3: 0,
          linear_rail: 0,
          gripper_joint: 0.04,
        },
      },
    );
    const end = await o.transport.runMotion(
      { actionId: "r1", targets: { elbow: 0.5 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    expect(end.kind).toBe("refused");
    if (end.kind === "refused") expect(end.error.code).toBe("ARMB_ERR_ROS_GOAL");
    expect(
      await o.transport.queryAction("r1", { voidIfUnknown: true, signal: AbortSignal.timeout(100) }),
    ).toMatchObject({ state: "rejected", moved: false });
  });

  it("a server that dies mid-goal: our signal ends the wait (no hang), the goal is not cancelled", async () => {
    const o = await start();
    const wait = new AbortController();
    const running = o.transport.runMotion({ actionId: "d1", targets: { elbow: -1.0 }, speed: 0.5 }, wait.signal);
    await until(o, (s) => s.axes.elbow!.moving);
    o.double.world.killServer(JTC);
    wait.abort();
    expect(await running).toEqual({ kind: "wait_ended" });
    expect(
      await o.transport.queryAction("d1", { voidIfUnknown: true, signal: AbortSignal.timeout(100) }),
    ).toMatchObject({ state: "executing" });
  });

  it("a server that dies mid-goal: our own result timeout fires when the caller's does not", async () => {
    const o = await start({ goal_time_tolerance_s: 0.05, result_margin_ms: 100 });
    const running = o.transport.runMotion(
      { actionId: "d2", targets: { elbow: 0.6 }, speed: 1 },
      AbortSignal.timeout(60_000),
    );
    await until(o, (s) => s.axes.elbow!.moving);
    o.double.world.killServer(JTC);
    const end = await running;
    expect(end.kind).toBe("link_error");
    if (end.kind === "link_error") expect(end.error.code).toBe("ARMB_ERR_ROS_TIMEOUT");
  });

  it("a dead server before sending: refused after the server wait, no goal sent", async () => {
    const o = await start({ server_wait_ms: 50 });
    o.double.world.killServer(JTC);
    const end = await o.transport.runMotion(
      { actionId: "d3", targets: { elbow: 0.6 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    expect(end.kind).toBe("refused");
    if (end.kind === "refused") expect(end.error.code).toBe("ARMB_ERR_ROS_TIMEOUT");
    expect(jtc(o).received).toHaveLength(0);
  });

  it("a timeout ends only our wait: the motion keeps going and its outcome is learned later", async () => {
    const o = await start();
    const end = await o.transport.runMotion(
      { actionId: "t1", targets: { shoulder_lift: 0.5 }, speed: 0.5 },
      AbortSignal.timeout(150),
    );
    expect(end).toEqual({ kind: "wait_ended" });
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
    await until(o, (s) => s.actions.some((a) => a.actionId === "t1" && a.state === "reached"));
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(o.transport.latestStatus()!.axes.shoulder_lift!.position).toBeCloseTo(0.5, 2);
    expect(jtc(o).received).toHaveLength(1);
  });

  it("the same action id again waits on the first goal and never sends a second", async () => {
    const o = await start();
    const first = o.transport.runMotion(
      { actionId: "s1", targets: { wrist_3: 0.4 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    const again = o.transport.runMotion(
      { actionId: "s1", targets: { wrist_3: 0.4 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    expect(ended(await first).state).toBe("reached");
    expect(ended(await again).state).toBe("reached");
    expect(jtc(o).received).toHaveLength(1);
  });

  it("a blocked joint: JTC aborts with GOAL_TOLERANCE_VIOLATED after the goal time → stalled, nothing moved", async () => {
    const o = await start({ goal_time_tolerance_s: 0.1 });
    o.double.world.blockJoint("wrist_2");
    const record = ended(
      await o.transport.runMotion({ actionId: "b1", targets: { wrist_2: 0.5 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    expect(record).toMatchObject({ state: "stalled", moved: false });
    expect(record.detail).toMatch(/error_code -5/);
  });

  it("stale /joint_states: refused before anything is sent", async () => {
    const o = await start(
      {},
      {},
      configWith((raw) => (raw.stale_after_ms = 100)),
    );
    o.double.world.stopJointStates();
    const stampAtStop = o.transport.latestStatus()!.stampMs;
    await new Promise((r) => setTimeout(r, 250));
    expect(o.transport.latestStatus()!.stampMs).toBe(stampAtStop);
    const end = await o.transport.runMotion(
      { actionId: "st1", targets: { elbow: 0.5 }, speed: 1 },
      AbortSignal.timeout(5000),
    );
    expect(end.kind).toBe("refused");
    // Stale for longer than the link's poll: the link is lost, and nothing leaves while it is.
    if (end.kind === "refused")
      expect(["ARMB_ERR_TRANSPORT_NO_STATUS", "ARMB_ERR_LINK_DOWN"]).toContain(end.error.code);
    expect(jtc(o).received).toHaveLength(0);
  });

  it("targets outside the limits or on unknown axes are refused locally", async () => {
    const o = await start();
    for (const targets of [{ elbow: 9 }, { nope: 0 }, { elbow: Number.NaN }]) {
      const end = await o.transport.runMotion(
        { actionId: `v-${Object.keys(targets)[0]}`, targets, speed: 1 },
        AbortSignal.timeout(1000),
      );
      expect(end.kind).toBe("refused");
      if (end.kind === "refused") expect(end.error.code).toBe("ARMB_ERR_MOTION_REFUSED");
    }
    expect(jtc(o).received).toHaveLength(0);
  });

  it("unknown action ids stay undefined: a ROS goal cannot be voided", async () => {
    const o = await start();
    expect(
      await o.transport.queryAction("never-sent", { voidIfUnknown: true, signal: AbortSignal.timeout(100) }),
    ).toBeUndefined();
  });

  it("feeds FollowJointTrajectory feedback to progress listeners", async () => {
    const o = await start();
    const seen: Ros2Feedback[] = [];
    const off = o.transport.onFeedback((f) => seen.push(f));
    ended(
      await o.transport.runMotion({ actionId: "f1", targets: { wrist_1: 0 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    off();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({
      actionId: "f1",
      server: { kind: "trajectory", controller: "joint_trajectory_controller" },
    });
    expect((seen[0]!.feedback as { actual: { positions: Float64Array } }).actual.positions).toBeInstanceOf(
      Float64Array,
    );
  });

  it("halt preempts a goal we do not own with a hold goal at the measured position", async () => {
    const o = await start();
    o.double.world.sendForeignGoal("joint_trajectory_controller", {
      trajectory: {
        joint_names: JOINTS,
        points: [{ positions: [1.0, -0.5, 1.0, -0.5, 0, 0], velocities: [], time_from_start: { sec: 2, nanosec: 0 } }],
      },
    });
    await until(o, (s) => s.axes.shoulder_pan!.moving);
    const halt = await o.transport.halt({ axes: ["shoulder_pan"], signal: AbortSignal.timeout(3000) });
    expect(halt.halted).toBe(true);
    expect(jtc(o).received).toHaveLength(1);
    const pan = halt.status!.axes.shoulder_pan!.position;
    expect(pan).toBeGreaterThan(0);
    expect(pan).toBeLessThan(1.0);
  });

  it("gripper: GripperCommand goal with the mapped opening and max_effort", async () => {
    const o = await start({ gripper: { closed_position: 0, open_position: 0.08, max_effort: 25 } });
    const record = ended(
      await o.transport.runMotion({ actionId: "g1", targets: { gripper: 0.25 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    expect(record.state).toBe("reached");
    expect(o.double.world.gripper!.received[0]).toEqual({ command: { position: 0.02, max_effort: 25 } });
    expect(o.transport.latestStatus()!.axes.gripper!.position).toBeCloseTo(0.25, 1);
  });

  it("gripper: the parallel gripper variant sends a one-joint JointState command; a blocked gripper stalls", async () => {
    const o = await start({
      gripper: {
        kind: "parallel_gripper",
        joint: "finger_joint",
        action_name: "/parallel_gripper_controller/gripper_cmd",
      },
    });
    o.double.world.blockJoint("finger_joint");
    const record = ended(
      await o.transport.runMotion({ actionId: "g2", targets: { gripper: 0 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    expect(record).toMatchObject({ state: "stalled", moved: false });
    expect(o.double.world.gripper!.received[0]).toMatchObject({ command: { name: ["finger_joint"], position: [0] } });
  });

  it("closing the host ends waits with TRANSPORT_CLOSED and shuts the node down", async () => {
    const o = await start();
    const running = o.transport.runMotion(
      { actionId: "x1", targets: { elbow: -2 }, speed: 0.2 },
      AbortSignal.timeout(30_000),
    );
    await until(o, (s) => s.axes.elbow!.moving);
    await o.host.close();
    const end = await running;
    expect(end.kind).toBe("link_error");
    if (end.kind === "link_error") expect(end.error.code).toBe("ARMB_ERR_TRANSPORT_CLOSED");
    expect(o.double.rcl.isShutdown()).toBe(true);
    expect(o.double.rcl.nodes.size).toBe(0);
  });
});
