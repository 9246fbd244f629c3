import { describe, expect, it } from "vitest";
import { createRclnodejsDouble, FJT, GOAL_STATUS, JTC_TEXT } from "../doubles/rclnodejsDouble.js";
import { configWith, ended, JOINTS, JTC, jtc, sleep, until, useRos2Double } from "./ros2OnDoubleHarness.js";

// The behaviours that changed between ros2_controllers releases (docs/ros2.md, the distro table),
// each on the double set to a release on either side of the change, judged by the double's record.

const { start, track } = useRos2Double();

describe("goal tolerances: read from the goal only from 2.37.0 / 4.11.0", () => {
  it("Humble 2.36: JTC ignores our tolerances and succeeds with a joint off target; armbridge confirms on /joint_states and says stalled", async () => {
    const o = await start({ settle_ms: 300 }, { distro: "humble", ros2ControllersVersion: "2.36.0" });
    o.double.world.blockJoint("wrist_2");
    const record = ended(
      await o.transport.runMotion({ actionId: "t1", targets: { wrist_2: 0.4 }, speed: 1 }, AbortSignal.timeout(10_000)),
    );
    // Ground truth: the controller's own constraints (goal tolerance 0 = unchecked) let it succeed.
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(record.state).toBe("stalled");
    expect(record.detail).toMatch(/\/joint_states shows wrist_2/);
    expect(record.moved).toBe(false);
  });

  it("Humble 2.37: the same blocked joint is aborted by JTC itself with GOAL_TOLERANCE_VIOLATED", async () => {
    const o = await start({ goal_time_tolerance_s: 0.2 }, { distro: "humble", ros2ControllersVersion: "2.37.0" });
    o.double.world.blockJoint("wrist_2");
    const record = ended(
      await o.transport.runMotion({ actionId: "t2", targets: { wrist_2: 0.4 }, speed: 1 }, AbortSignal.timeout(10_000)),
    );
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(jtc(o).goals[0]!.result).toMatchObject({ error_code: FJT.GOAL_TOLERANCE_VIOLATED });
    expect(record.state).toBe("stalled");
  });

  it("with no installed version to read, armbridge says so at start and confirms every JTC reached on /joint_states", async () => {
    const o = await start({}, { distro: "humble" });
    expect(o.transport.facts!.goalTolerancesHonoured).toBeUndefined();
    expect(o.transport.facts!.lines.join("\n")).toMatch(/not known to be honoured/);
  });
});

describe("deactivation: nothing before 2.32 / 4.4, CANCELED until 2.41 / 4.20, ABORTED since", () => {
  it.each([
    ["humble", "2.40.0", GOAL_STATUS.CANCELED],
    ["jazzy", "4.20.0", GOAL_STATUS.CANCELED],
    ["jazzy", "4.21.0", GOAL_STATUS.ABORTED],
  ] as const)(
    "%s %s: the goal ends %s with the deactivation text; armbridge says faulted, not stopped",
    async (distro, version, status) => {
      const o = await start({}, { distro, ros2ControllersVersion: version });
      const running = o.transport.runMotion(
        { actionId: "d1", targets: { elbow: -1.5 }, speed: 0.3 },
        AbortSignal.timeout(10_000),
      );
      await until(o, (s) => s.axes.elbow!.moving);
      o.double.world.deactivateController("joint_trajectory_controller");
      const record = ended(await running);
      expect(jtc(o).goals[0]!.status).toBe(status);
      expect(jtc(o).goals[0]!.result).toMatchObject({
        error_code: FJT.INVALID_GOAL,
        error_string: JTC_TEXT.deactivated,
      });
      expect(record.state).toBe("faulted");
      expect(record.detail).toMatch(/deactivate/);
    },
  );

  it("Humble 2.31: the goal is left executing and its last feedback republished with a frozen stamp; armbridge sees the stamps stop and settles it stopped", async () => {
    const o = await start(
      { feedback_idle_ms: 400, settle_ms: 500 },
      { distro: "humble", ros2ControllersVersion: "2.31.0" },
    );
    const running = o.transport.runMotion(
      { actionId: "d2", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.elbow!.moving);
    o.double.world.deactivateController("joint_trajectory_controller");
    const sentBefore = jtc(o).goals[0]!.feedbackSent;
    const record = ended(await running);
    // Ground truth: never ended, and the goal handle timer kept republishing its feedback.
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
    expect(jtc(o).goals[0]!.feedbackSent).toBeGreaterThan(sentBefore + 4);
    expect(record.state).toBe("stopped");
    expect(record.detail).toMatch(/feedback stopped/);
  });
});

describe("feedback: realtime_tools republishes the last one on every goal-handle tick", () => {
  it("a goal executing for 1 s at 20 Hz gets about 20 feedback messages, whether or not the control loop changed them", async () => {
    const h = track(
      createRclnodejsDouble({
        positions: { a: 0 },
        controllers: [{ name: "c", actionName: "/c/follow_joint_trajectory", joints: ["a"] }],
      }),
    );
    await h.rcl.init(undefined, ["node", "t"]);
    const node = new h.rcl.Node("t");
    node.spin();
    const c = new h.rcl.ActionClient(node, "control_msgs/action/FollowJointTrajectory", "/c/follow_joint_trajectory");
    const stamps: string[] = [];
    await c.sendGoal(
      {
        trajectory: {
          joint_names: ["a"],
          points: [{ positions: [1], velocities: [0], time_from_start: { sec: 3, nanosec: 0 } }],
        },
      },
      (fb) => {
        const s = (fb as { header: { stamp: { sec: number; nanosec: number } } }).header.stamp;
        stamps.push(`${s.sec}.${s.nanosec}`);
      },
    );
    await sleep(1000);
    expect(stamps.length).toBeGreaterThanOrEqual(12);
    expect(new Set(stamps).size).toBeGreaterThan(10);
  });
});

describe("speed scaling: stock JTC has it from 4.39.0 (position commands); UR's scaled controller always", () => {
  it("Jazzy 4.38: a slider at 30 % does nothing to stock JTC — the motion runs at full speed and the pace says 1", async () => {
    const o = await start({}, { distro: "jazzy", ros2ControllersVersion: "4.38.0", speedScaling: 0.3 });
    let worst = 1;
    const off = o.transport.pace.onChange(() => (worst = Math.min(worst, o.transport.pace.of(["elbow"])?.factor ?? 1)));
    const t0 = Date.now();
    ended(
      await o.transport.runMotion({ actionId: "s1", targets: { elbow: 0.4 }, speed: 1 }, AbortSignal.timeout(10_000)),
    );
    off();
    expect(Date.now() - t0).toBeLessThan(2500);
    expect(o.transport.facts!.controllers.get("joint_trajectory_controller")!.speedScaling).toBe("none");
    expect(worst).toBeGreaterThan(0.8);
  });

  it("Jazzy 4.42: stock JTC reads ~/speed_scaling_input; armbridge reads it too (transient local) and from the feedback", async () => {
    const o = await start({}, { distro: "jazzy", ros2ControllersVersion: "4.42.1", speedScaling: 0.5 });
    expect(o.transport.facts!.controllers.get("joint_trajectory_controller")!.speedScaling).toBe("input_topic");
    expect(o.transport.pace.of(["elbow"])).toMatchObject({ factor: 0.5, paused: false });
    const running = o.transport.runMotion(
      { actionId: "s2", targets: { elbow: 0.4 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    await sleep(700);
    const pace = o.transport.pace.of(["elbow"])!;
    expect(pace.source).toMatch(/feedback/);
    expect(pace.factor).toBeGreaterThan(0.35);
    expect(pace.factor).toBeLessThan(0.65);
    ended(await running);
  });

  it("the gripper has no pace: a slider is the arm's", async () => {
    const o = await start({}, { distro: "jazzy", speedScaling: 0.5 });
    expect(o.transport.pace.of(["gripper"])).toBeUndefined();
  });
});

describe("decelerate_on_cancel (Jazzy ≥ 4.39): a cancel ramps down instead of holding at once", () => {
  it("with the parameters showing it, halt_own_goals auto cancels, and the controller ramps at max_deceleration_on_cancel", async () => {
    const o = await start(
      {},
      {
        distro: "jazzy",
        controllers: [
          {
            name: "joint_trajectory_controller",
            actionName: JTC,
            joints: JOINTS,
            decelerateOnCancel: { maxDeceleration: 4 },
          },
        ],
      },
    );
    expect(o.transport.facts!.controllers.get("joint_trajectory_controller")!.decelerateOnCancel).toBe(true);
    const running = o.transport.runMotion(
      { actionId: "dc", targets: { shoulder_pan: 1.5 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => Math.abs(s.axes.shoulder_pan!.velocity) > 1);
    await o.transport.halt({ signal: AbortSignal.timeout(3000) });
    expect(ended(await running).state).toBe("stopped");
    expect(jtc(o).goals).toHaveLength(1);
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.CANCELED);
    expect(jtc(o).stops[0]).toMatchObject({ reason: "cancel", mode: "decelerate", peakDeceleration: 4 });
  });

  it("Humble: the parameter does not exist, so a halt brakes with a hold goal", async () => {
    const o = await start({}, { distro: "humble" });
    expect(o.transport.facts!.controllers.get("joint_trajectory_controller")!.decelerateOnCancel).toBe(false);
  });
});

describe("grippers: preempted at once; a stall only on a quiet velocity", () => {
  it("gripper_action_controller: a newer goal from another client ends ours CANCELED with an empty result at once", async () => {
    const o = await start(
      {},
      {
        gripper: {
          actionName: "/gripper_controller/gripper_cmd",
          kind: "gripper_command",
          joint: "gripper_joint",
          velocity: 0.01,
        },
      },
    );
    const running = o.transport.runMotion(
      { actionId: "gp", targets: { gripper: 0 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    while (o.double.world.gripper!.goals.length === 0) await sleep(5);
    const t0 = Date.now();
    // Another client's goal, straight to the server.
    const foreign = new o.double.rcl.ActionClient(
      [...o.double.rcl.nodes][0]!,
      "control_msgs/action/GripperCommand",
      "/gripper_controller/gripper_cmd",
    );
    await foreign.sendGoal({ command: { position: 0.04, max_effort: 1 } });
    const record = ended(await running);
    expect(Date.now() - t0).toBeLessThan(500);
    expect(o.double.world.gripper!.goals[0]!.status).toBe(GOAL_STATUS.CANCELED);
    expect(o.double.world.gripper!.goals[0]!.result).toMatchObject({
      stalled: false,
      reached_goal: false,
      position: 0,
    });
    expect(record.state).toBe("stopped");
  });

  it("velocity noise above stall_velocity_threshold: the controller never ends a goal blocked by an object; armbridge settles it grasped by observation", async () => {
    const o = await start(
      { result_margin_ms: 300, settle_ms: 300 },
      {
        velocityNoise: 0.002,
        gripper: {
          actionName: "/gripper_controller/gripper_cmd",
          kind: "gripper_command",
          joint: "gripper_joint",
          velocity: 0.04,
        },
      },
      configWith((raw) => (raw.tolerances = { ...(raw.tolerances as object), stopped_velocity: 0.1 })),
    );
    o.double.world.placeObject("gripper_joint", 0.02);
    const record = ended(
      await o.transport.runMotion({ actionId: "gn", targets: { gripper: 0 }, speed: 1 }, AbortSignal.timeout(15_000)),
    );
    // Ground truth: the goal is still active on the controller, which never saw a stall.
    expect(o.double.world.gripper!.goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
    expect(o.double.world.position("gripper_joint")).toBeCloseTo(0.02, 4);
    expect(record.state).toBe("grasped");
    expect(record.detail).toMatch(/closed on an object at 0\.500 of its opening and holds it/);
  });
});

describe("/clock: rclnodejs's time source subscribes RELIABLE", () => {
  it("a best-effort /clock (rosbag2 --clock) never reaches node.now(); armbridge counts sim time from its own subscription, so a plan bound still ends", async () => {
    // A gripper goal the controller never ends (an object, and a velocity too noisy for its stall check):
    // only the plan bound on sim time lets armbridge look at it and settle it.
    const o = await start(
      { goal_time_tolerance_s: 0.05, result_margin_ms: 100, settle_ms: 300 },
      {
        simTimeRate: 0.5,
        clockReliability: "best_effort",
        velocityNoise: 0.002,
        gripper: {
          actionName: "/gripper_controller/gripper_cmd",
          kind: "gripper_command",
          joint: "gripper_joint",
          velocity: 0.04,
        },
        argv: ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"],
      },
      configWith((raw) => (raw.tolerances = { ...(raw.tolerances as object), stopped_velocity: 0.1 })),
    );
    o.double.world.placeObject("gripper_joint", 0.02);
    await sleep(300);
    const node = [...o.double.rcl.nodes][0]!;
    expect(node.now().nanoseconds).toBe(0n);
    const record = ended(
      await o.transport.runMotion({ actionId: "ck", targets: { gripper: 0 }, speed: 1 }, AbortSignal.timeout(15_000)),
    );
    expect(record.state).toBe("grasped");
    expect(o.double.world.gripper!.goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
  });
});
