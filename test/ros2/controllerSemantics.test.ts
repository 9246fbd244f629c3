import { Writable } from "node:stream";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { createRos2Node } from "../../src/transport/ros2/createRos2Node.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { createRclnodejsDouble, GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { configWith, ended, HOME, JOINTS, JTC, jtc, sleep, until, useRos2Double } from "./ros2OnDoubleHarness.js";

// The ten controller behaviours of issue #10, each on the rclnodejs double set up the way the real
// controllers behave (sources in test/doubles/simControllers.ts), each judged by the double's record.

const { start, track, own } = useRos2Double();

describe("1. the result wait follows the controller's clock and feedback, not a wall-clock plan", () => {
  it("speed scaling 0.3 (a UR speed slider): a correct goal that takes 3× its plan ends reached, not ROS_TIMEOUT", async () => {
    const o = await start({ goal_time_tolerance_s: 0.3, result_margin_ms: 200 }, { speedScaling: 0.3 });
    const record = ended(
      await o.transport.runMotion({ actionId: "ss1", targets: { elbow: -0.5 }, speed: 1 }, AbortSignal.timeout(20_000)),
    );
    expect(record.state).toBe("reached");
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(o.double.world.position("elbow")).toBeCloseTo(-0.5, 2);
  });

  it("use_sim_time with a sim clock at 0.3× real time: a gripper goal (no feedback) is bounded on the node clock and ends reached", async () => {
    const o = await start(
      { goal_time_tolerance_s: 0.05, result_margin_ms: 100 },
      { simTimeRate: 0.3, argv: ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"] },
    );
    const record = ended(
      await o.transport.runMotion({ actionId: "sim1", targets: { gripper: 0 }, speed: 1 }, AbortSignal.timeout(20_000)),
    );
    expect(record.state).toBe("reached");
    expect(o.double.world.gripper!.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
  });
});

describe("2. preemption: Humble and Jazzy < 4.41 send the old goal's result only when the preempting goal ends", () => {
  it.each([
    ["humble", undefined],
    ["jazzy", "4.40.1"],
  ] as const)(
    "%s %s: a goal preempted by a long foreign goal ends stopped while its result is still unsent",
    async (distro, version) => {
      const o = await start({}, { distro, ...(version ? { ros2ControllersVersion: version } : {}) });
      let feedback = 0;
      const off = o.transport.onFeedback(() => feedback++);
      const running = o.transport.runMotion(
        { actionId: "p1", targets: { wrist_1: 1.5 }, speed: 0.3 },
        AbortSignal.timeout(20_000),
      );
      // Our goal is executing and JTC has published feedback for it (on its 20 Hz goal handle timer).
      while (feedback === 0) await sleep(5);
      off();
      const here = o.transport.latestStatus()!;
      // The foreign goal takes 10 s: far longer than our plan's deadline.
      o.double.world.sendForeignGoal("joint_trajectory_controller", {
        trajectory: {
          joint_names: JOINTS,
          points: [
            {
              positions: JOINTS.map((j) => here.axes[j]!.position),
              velocities: [],
              time_from_start: { sec: 10, nanosec: 0 },
            },
          ],
        },
      });
      const record = ended(await running);
      expect(record.state).toBe("stopped");
      expect(record.detail).toMatch(/feedback stopped/);
      // Ground truth: the controller has not sent our goal's result yet.
      expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
    },
  );

  it("humble: a goal preempted before its first feedback, on a controller known to send feedback, also ends stopped", async () => {
    // Feedback goes out on the 300 ms goal-handle timer, so the preemption below lands before any.
    const o = await start({}, { distro: "humble", actionMonitorPeriodMs: 300 });
    ended(
      await o.transport.runMotion(
        { actionId: "warm", targets: { wrist_3: 0.2 }, speed: 1 },
        AbortSignal.timeout(10_000),
      ),
    );
    let feedback = 0;
    const off = o.transport.onFeedback((f) => (f.actionId === "p2" ? feedback++ : 0));
    const running = o.transport.runMotion(
      { actionId: "p2", targets: { wrist_1: 1.5 }, speed: 0.3 },
      AbortSignal.timeout(20_000),
    );
    while (jtc(o).goals.length < 2) await sleep(2);
    const here = o.transport.latestStatus()!;
    o.double.world.sendForeignGoal("joint_trajectory_controller", {
      trajectory: {
        joint_names: JOINTS,
        points: [
          {
            positions: JOINTS.map((j) => here.axes[j]!.position),
            velocities: [],
            time_from_start: { sec: 10, nanosec: 0 },
          },
        ],
      },
    });
    const record = ended(await running);
    off();
    expect(feedback).toBe(0);
    expect(record.state).toBe("stopped");
    expect(jtc(o).goals[1]!.status).toBe(GOAL_STATUS.EXECUTING);
  });

  it("the double: humble holds the old result until the preempting goal ends (CANCELED, empty); jazzy ≥ 4.41 aborts at once", async () => {
    for (const [distro, expected] of [
      ["humble", "delayed"],
      ["jazzy", "now"],
    ] as const) {
      const h = track(
        createRclnodejsDouble({
          positions: { a: 0 },
          controllers: [{ name: "c", actionName: "/c/follow_joint_trajectory", joints: ["a"] }],
          distro,
        }),
      );
      await h.rcl.init(undefined, ["node", "t"]);
      const node = new h.rcl.Node("t");
      node.spin();
      const c = new h.rcl.ActionClient(node, "control_msgs/action/FollowJointTrajectory", "/c/follow_joint_trajectory");
      const goal = (p: number, s: number) => ({
        trajectory: {
          joint_names: ["a"],
          points: [{ positions: [p], velocities: [0], time_from_start: { sec: s, nanosec: 0 } }],
        },
      });
      const first = await c.sendGoal(goal(1, 5));
      const firstResult = first.getResult();
      await sleep(100);
      await c.sendGoal(goal(0.1, 1));
      await sleep(300);
      const server = h.world.controllers.get("c")!;
      if (expected === "now") {
        expect(server.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
        expect(await firstResult).toMatchObject({
          error_code: -1,
          error_string: "Current goal preempted by new incoming action.",
        });
      } else {
        expect(server.goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
        expect(await firstResult).toEqual({ error_code: 0, error_string: "" });
        // Sent only once the preempting goal (1 s) had ended.
        expect(server.goals[1]!.status).toBe(GOAL_STATUS.SUCCEEDED);
        expect(first.status).toBe(GOAL_STATUS.CANCELED);
      }
    }
  });
});

describe("3. freshness is judged by receive time, not the publisher's clock", () => {
  it("a controller PC whose clock is 0.7 s behind: motions are not refused as stale, and end reached", async () => {
    const o = await start({}, { clockSkewMs: -700 });
    const record = ended(
      await o.transport.runMotion({ actionId: "sk1", targets: { wrist_2: 0.3 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    expect(record.state).toBe("reached");
    expect(jtc(o).goals).toHaveLength(1);
  });

  it("a clock 0.4 s behind: a blocked joint's stall is settled moved: false from a sample received after the end", async () => {
    const o = await start(
      { goal_time_tolerance_s: 0.1 },
      { clockSkewMs: -400 },
      configWith((raw) => (raw.stale_after_ms = 450)),
    );
    o.double.world.blockJoint("wrist_2");
    const record = ended(
      await o.transport.runMotion({ actionId: "sk2", targets: { wrist_2: 0.5 }, speed: 1 }, AbortSignal.timeout(5000)),
    );
    expect(record).toMatchObject({ state: "stalled", moved: false });
  });
});

describe("4. goal velocity tolerance", () => {
  it("velocity noise at rest (±0.02 rad/s) on a velocity-commanded JTC: our explicit goal velocity tolerance lets a correct goal succeed", async () => {
    const o = await start(
      {},
      {
        controllers: [{ name: "joint_trajectory_controller", actionName: JTC, joints: JOINTS, velocityErrors: true }],
        velocityNoise: 0.02,
      },
      configWith((raw) => (raw.tolerances = { ...(raw.tolerances as object), stopped_velocity: 0.05 })),
    );
    const record = ended(
      await o.transport.runMotion({ actionId: "vn1", targets: { wrist_3: 0.3 }, speed: 1 }, AbortSignal.timeout(8000)),
    );
    expect(record.state).toBe("reached");
    const sent = jtc(o).received[0] as { goal_tolerance: Array<{ velocity: number }> };
    expect(sent.goal_tolerance.every((t) => t.velocity > 0.02)).toBe(true);
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
  });
});

describe("6. params files apply as rclnodejs applies them", () => {
  it("a params file keyed /armbridge: is not applied, and a warning says why", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-params-"));
    const file = join(dir, "params.yaml");
    writeFileSync(file, ["/armbridge:", "  ros__parameters:", "    tolerances:", "      position: 0.05"].join("\n"));
    const h = track(createRclnodejsDouble({ positions: {}, controllers: [] }));
    const lines: string[] = [];
    const logger = pino(
      { level: "warn" },
      new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }),
    );
    const node = await createRos2Node(h.rcl, {
      config: loadConfig(),
      argv: ["node", "armbridge", "--ros-args", "--params-file", file, "--"],
      logger,
    });
    try {
      expect(node.config.tolerances.position).toBe(0.01);
      const warning = lines
        .map((l) => JSON.parse(l) as { msg: string; params_file?: string })
        .find((l) => l.params_file === file);
      expect(warning?.msg).toMatch(/no section for node armbridge/);
    } finally {
      node.shutdown();
    }
  });

  it("the double applies /** and the exact node name, the node's section winning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-params-"));
    const file = join(dir, "params.yaml");
    writeFileSync(
      file,
      [
        "armbridge:",
        "  ros__parameters:",
        "    server_wait_ms: 7",
        "/**:",
        "  ros__parameters:",
        "    server_wait_ms: 9",
        "    cancel_timeout_ms: 11",
        "/ns/armbridge:",
        "  ros__parameters:",
        "    settle_ms: 13",
      ].join("\n"),
    );
    const o = await createRos2TransportOnDouble(
      loadConfig(),
      {},
      { argv: ["node", "armbridge", "--ros-args", "--params-file", file, "--"] },
    );
    own(o);
    const node = [...o.double.rcl.nodes][0]!;
    expect(node.getParameter("server_wait_ms").value).toBe(7n);
    expect(node.getParameter("cancel_timeout_ms").value).toBe(11n);
    expect(node.getParameter("settle_ms").value).toBe(1000);
  });
});

describe("7. a cancel that lands after the success request", () => {
  it("leaves the goal CANCELING (succeed suppressed); the motion is settled by observation as reached", async () => {
    const o = await start({ halt_own_goals: "cancel" }, { actionMonitorPeriodMs: 600 });
    const running = o.transport.runMotion(
      { actionId: "ce1", targets: { wrist_3: 0.3 }, speed: 1 },
      AbortSignal.timeout(20_000),
    );
    // The control loop has asked for success; the goal handle timer has not sent it yet.
    const deadline = Date.now() + 5000;
    while (jtc(o).goals[0]?.request?.kind !== "succeed" || jtc(o).goals[0]!.status !== GOAL_STATUS.EXECUTING) {
      if (Date.now() > deadline) throw new Error("no success request");
      await sleep(2);
    }
    const halt = await o.transport.halt({ axes: ["wrist_3"], signal: AbortSignal.timeout(3000) });
    expect(halt.error).toBeUndefined();
    const record = ended(await running);
    expect(record.state).toBe("reached");
    expect(record.moved).toBe(true);
    // Ground truth: the controller never sent a result.
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.CANCELING);
  });
});

describe("8. a gripper's reached_goal is confirmed against tolerances.gripper", () => {
  it("the controller's goal_tolerance (0.01 of a 0.04 stroke) says reached early; done only once /joint_states is within tolerance", async () => {
    const o = await start(
      {},
      {
        gripper: {
          actionName: "/gripper_controller/gripper_cmd",
          kind: "gripper_command",
          joint: "gripper_joint",
          velocity: 0.04,
          goalTolerance: 0.01,
        },
      },
    );
    const record = ended(
      await o.transport.runMotion({ actionId: "gr1", targets: { gripper: 0.25 }, speed: 1 }, AbortSignal.timeout(8000)),
    );
    expect(record.state).toBe("reached");
    expect(Math.abs(o.transport.latestStatus()!.axes.gripper!.position - 0.25)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(o.double.world.position("gripper_joint") - 0.01)).toBeLessThanOrEqual(0.02 * 0.04);
  });

  it("a gripper that reports reached but stops short (blocked) ends stalled", async () => {
    const o = await start(
      { settle_ms: 300 },
      {
        gripper: {
          actionName: "/gripper_controller/gripper_cmd",
          kind: "gripper_command",
          joint: "gripper_joint",
          velocity: 0.04,
          goalTolerance: 0.01,
        },
      },
    );
    const running = o.transport.runMotion(
      { actionId: "gr2", targets: { gripper: 0.25 }, speed: 1 },
      AbortSignal.timeout(8000),
    );
    while (o.double.world.gripper!.goals[0]?.request?.kind !== "succeed") await sleep(2);
    o.double.world.blockJoint("gripper_joint");
    const record = ended(await running);
    expect(record.state).toBe("stalled");
    expect(o.double.world.gripper!.goals[0].status).toBe(GOAL_STATUS.SUCCEEDED);
  });
});

describe("9. controller deactivation", () => {
  it("ABORTED / INVALID_GOAL from a deactivated controller is a fault, not a clean stop", async () => {
    const o = await start();
    const running = o.transport.runMotion(
      { actionId: "de1", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.elbow!.moving);
    o.double.world.deactivateController("joint_trajectory_controller");
    const record = ended(await running);
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(jtc(o).goals[0]!.result).toMatchObject({ error_code: -1 });
    expect(record.state).toBe("faulted");
    expect(record.detail).toMatch(/deactivate/);
  });

  it("Jazzy ≥ 4.41 preemption (ABORTED / INVALID_GOAL, the preemption text) is still a stop", async () => {
    const o = await start({}, { distro: "jazzy", ros2ControllersVersion: "4.41.0" });
    const running = o.transport.runMotion(
      { actionId: "de2", targets: { elbow: -1.5 }, speed: 0.3 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.elbow!.moving);
    o.double.world.sendForeignGoal("joint_trajectory_controller", {
      trajectory: {
        joint_names: JOINTS,
        points: [{ positions: HOME, velocities: [], time_from_start: { sec: 1, nanosec: 0 } }],
      },
    });
    expect(ended(await running).state).toBe("stopped");
    expect(jtc(o).goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
  });
});

describe("10. the hold goal for a foreign motion brakes within the configured acceleration", () => {
  it("halting a foreign motion at ~0.7 rad/s asks the arm for no more than ~1.5× max_acceleration", async () => {
    const o = await start();
    o.double.world.sendForeignGoal("joint_trajectory_controller", {
      trajectory: {
        joint_names: JOINTS,
        // Velocities given: JTC interpolates a cubic (peak 0.75 rad/s); positions alone would be linear at 0.5.
        points: [
          {
            positions: [1.0, ...HOME.slice(1)],
            velocities: JOINTS.map(() => 0),
            time_from_start: { sec: 2, nanosec: 0 },
          },
        ],
      },
    });
    await until(o, (s) => s.axes.shoulder_pan!.velocity > 0.6);
    const halt = await o.transport.halt({ axes: ["shoulder_pan"], signal: AbortSignal.timeout(3000) });
    expect(halt.halted).toBe(true);
    const hold = jtc(o).goals[0]!;
    // shoulder_pan: max_acceleration 6 rad/s² in config/sim-arm.yaml.
    expect(hold.peakAcceleration).toBeGreaterThan(0);
    expect(hold.peakAcceleration).toBeLessThanOrEqual(6 * 1.5);
    expect(halt.status!.axes.shoulder_pan!.moving).toBe(false);
  });
});
