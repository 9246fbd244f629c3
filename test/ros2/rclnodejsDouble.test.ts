import { afterEach, describe, expect, it } from "vitest";
import { createRclnodejsDouble, GOAL_STATUS, type RclnodejsDoubleHandle } from "../doubles/rclnodejsDouble.js";

// The double must behave like rclnodejs + JTC, or tests on it prove nothing: these pin its behaviour.
const J = ["a", "b"];
let handle: RclnodejsDoubleHandle | undefined;
afterEach(() => {
  handle?.close();
  handle = undefined;
});

async function client(options: { allowPartialJointsGoal?: boolean; defaultGoalTimeS?: number } = {}) {
  handle = createRclnodejsDouble({
    positions: { a: 0, b: 0 },
    controllers: [{ name: "jtc", actionName: "/jtc/follow_joint_trajectory", joints: J, ...options }],
  });
  const rcl = handle.rcl;
  await rcl.init(undefined, ["node", "t"]);
  const node = new rcl.Node("t");
  node.spin();
  return {
    world: handle.world,
    c: new rcl.ActionClient(node, "control_msgs/action/FollowJointTrajectory", "/jtc/follow_joint_trajectory"),
  };
}

const point = (positions: number[], velocities: number[], s: number) => ({
  positions,
  velocities,
  time_from_start: { sec: Math.floor(s), nanosec: Math.round((s % 1) * 1e9) },
});
const goal = (names: string[], points: ReturnType<typeof point>[], extra: object = {}) => ({
  trajectory: { joint_names: names, points },
  ...extra,
});

describe("rclnodejs double: simulated JTC", () => {
  it.each([
    ["partial joints", goal(["a"], [point([1], [0], 0.2)])],
    ["unknown joint", goal(["a", "z"], [point([1, 0], [0, 0], 0.2)])],
    ["positions length mismatch", goal(J, [point([1], [0, 0], 0.2)])],
    ["last point nonzero velocity", goal(J, [point([1, 0], [0.5, 0], 0.2)])],
    ["non-increasing time", goal(J, [point([1, 0], [], 0.2), point([1, 1], [0, 0], 0.2)])],
  ])("rejects a goal with %s (isAccepted false)", async (_why, g) => {
    const { c } = await client();
    const h = await c.sendGoal(g);
    expect(h.isAccepted()).toBe(false);
  });

  it("accepts a partial goal with allow_partial_joints_goal", async () => {
    const { c } = await client({ allowPartialJointsGoal: true });
    expect((await c.sendGoal(goal(["a"], [point([0.1], [0], 0.1)]))).isAccepted()).toBe(true);
  });

  it("cancel: CANCELED with error_code 0, position held", async () => {
    const { c, world } = await client();
    const h = await c.sendGoal(goal(J, [point([1, 1], [0, 0], 1)]));
    await new Promise((r) => setTimeout(r, 200));
    expect((await h.cancelGoal()).return_code).toBe(0);
    const result = (await h.getResult()) as { error_code: number };
    expect(result.error_code).toBe(0);
    expect(h.status).toBe(GOAL_STATUS.CANCELED);
    const held = world.position("a");
    await new Promise((r) => setTimeout(r, 100));
    expect(world.position("a")).toBe(held);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(1);
  });

  it("goal time 0 with no controller default waits forever on a joint that cannot get there", async () => {
    const { c, world } = await client({ defaultGoalTimeS: 0 });
    world.blockJoint("b");
    const h = await c.sendGoal(
      goal(J, [point([0.1, 0.1], [0, 0], 0.1)], {
        goal_tolerance: J.map((name) => ({ name, position: 0.01, velocity: 0, acceleration: 0 })),
      }),
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(h.status).toBe(GOAL_STATUS.EXECUTING);
  });

  it("a dead server never settles sendGoal, and is not available", async () => {
    const { c, world } = await client();
    world.killServer("/jtc/follow_joint_trajectory");
    expect(c.isActionServerAvailable()).toBe(false);
    expect(await c.waitForServer(30)).toBe(false);
    const settled = await Promise.race([
      c.sendGoal(goal(J, [point([1, 1], [0, 0], 0.1)])).then(() => "settled"),
      new Promise((r) => setTimeout(() => r("pending"), 200)),
    ]);
    expect(settled).toBe("pending");
  });

  it("publishes JointState with Float64Array fields at about 100 Hz, only to a spinning node", async () => {
    handle = createRclnodejsDouble({ positions: { a: 0.5 }, controllers: [] });
    await handle.rcl.init(undefined, ["node", "t"]);
    const node = new handle.rcl.Node("t");
    const got: Array<{ position: Float64Array; velocity: Float64Array }> = [];
    node.createSubscription("sensor_msgs/msg/JointState", "/joint_states", (m) => got.push(m as never));
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toHaveLength(0);
    node.spin();
    await new Promise((r) => setTimeout(r, 300));
    expect(got.length).toBeGreaterThan(5);
    expect(got[0]!.position).toBeInstanceOf(Float64Array);
    expect(got[0]!.velocity).toBeInstanceOf(Float64Array);
    expect(got[0]!.position[0]).toBe(0.5);
  });
});

describe("rclnodejs double: clocks, noise, speed scaling, lifecycle", () => {
  async function graph(
    options: Partial<Parameters<typeof createRclnodejsDouble>[0]> = {},
    argv: string[] = ["node", "t"],
  ) {
    handle = createRclnodejsDouble({
      positions: { a: 0, b: 0 },
      controllers: [{ name: "jtc", actionName: "/jtc/follow_joint_trajectory", joints: J }],
      ...options,
    });
    await handle.rcl.init(undefined, argv);
    const node = new handle.rcl.Node("t");
    node.spin();
    return {
      world: handle.world,
      node,
      c: new handle.rcl.ActionClient(node, "control_msgs/action/FollowJointTrajectory", "/jtc/follow_joint_trajectory"),
    };
  }

  it("a sim clock at 0.5×: node.now() under use_sim_time starts near 0 and runs at about half the wall clock", async () => {
    const { node } = await graph({ simTimeRate: 0.5 }, ["node", "t", "--ros-args", "-p", "use_sim_time:=true", "--"]);
    // node.now() is the last /clock received: compare it with the wall clock at the moments /clock
    // arrived, not at arbitrary moments a loaded machine may put a tick's worth after one.
    const arrivals: Array<{ simMs: number; nowMs: number; wallMs: number }> = [];
    node.createSubscription("rosgraph_msgs/msg/Clock", "/clock", { qos: { reliability: "reliable" } }, (m) => {
      const { sec, nanosec } = (m as { clock: { sec: number; nanosec: number } }).clock;
      arrivals.push({
        simMs: sec * 1000 + nanosec / 1e6,
        nowMs: Number(node.now().nanoseconds) / 1e6,
        wallMs: Date.now(),
      });
    });
    await new Promise((r) => setTimeout(r, 400));
    const first = arrivals[0]!;
    const last = arrivals.at(-1)!;
    const sim = last.simMs - first.simMs;
    const wall = last.wallMs - first.wallMs;
    expect(first.simMs).toBeLessThan(60_000);
    expect(wall).toBeGreaterThan(200);
    // node.now() follows /clock: never ahead of the newest message.
    for (const a of arrivals) expect(a.nowMs).toBeLessThanOrEqual(a.simMs + 1e-6);
    expect(Math.abs(last.nowMs - last.simMs)).toBeLessThan(50);
    // Never ahead of half the wall clock; behind it by at most the delivery jitter of two messages.
    expect(sim).toBeLessThanOrEqual(0.5 * wall + 10);
    expect(sim).toBeGreaterThan(0.25 * wall);
  });

  it("header stamps carry the publisher's clock skew", async () => {
    const { node } = await graph({ clockSkewMs: -2000 });
    const stamps: number[] = [];
    node.createSubscription("sensor_msgs/msg/JointState", "/joint_states", (m) =>
      stamps.push((m as { header: { stamp: { sec: number; nanosec: number } } }).header.stamp.sec * 1000),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(Date.now() - stamps.at(-1)!).toBeGreaterThan(1500);
  });

  it("velocity noise at rest: measured velocities are nonzero while the joints stand still", async () => {
    const { node, world } = await graph({ velocityNoise: 0.02 });
    const velocities: number[] = [];
    node.createSubscription("sensor_msgs/msg/JointState", "/joint_states", (m) =>
      velocities.push(...(m as { velocity: Float64Array }).velocity),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(velocities.every((v) => Math.abs(v) >= 0.01 && Math.abs(v) <= 0.02)).toBe(true);
    expect(world.position("a")).toBe(0);
  });

  it("speed scaling 0.5: a 0.2 s trajectory takes at least 0.4 s", async () => {
    const { c, world } = await graph({ speedScaling: 0.5 });
    const t0 = Date.now();
    const h = await c.sendGoal(goal(J, [point([0.1, 0.1], [0, 0], 0.2)]));
    await h.getResult();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(h.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(world.position("a")).toBeCloseTo(0.1, 3);
  });

  it("deactivation aborts the active goal (INVALID_GOAL, deactivate text) and rejects goals until activated", async () => {
    const { c, world } = await graph();
    const h = await c.sendGoal(goal(J, [point([1, 1], [0, 0], 1)]));
    world.deactivateController("jtc");
    expect(await h.getResult()).toMatchObject({
      error_code: -1,
      error_string: "Current goal cancelled during deactivate transition.",
    });
    expect(h.status).toBe(GOAL_STATUS.ABORTED);
    expect((await c.sendGoal(goal(J, [point([0, 0], [0, 0], 0.1)]))).isAccepted()).toBe(false);
    world.activateController("jtc");
    expect((await c.sendGoal(goal(J, [point([0, 0], [0, 0], 0.1)]))).isAccepted()).toBe(true);
  });
});
