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
  return { world: handle.world, c: new rcl.ActionClient(node, "control_msgs/action/FollowJointTrajectory", "/jtc/follow_joint_trajectory") };
}

const point = (positions: number[], velocities: number[], s: number) => ({ positions, velocities, time_from_start: { sec: Math.floor(s), nanosec: Math.round((s % 1) * 1e9) } });
const goal = (names: string[], points: ReturnType<typeof point>[], extra: object = {}) => ({ trajectory: { joint_names: names, points }, ...extra });

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
    const h = await c.sendGoal(goal(J, [point([0.1, 0.1], [0, 0], 0.1)], { goal_tolerance: J.map((name) => ({ name, position: 0.01, velocity: 0, acceleration: 0 })) }));
    await new Promise((r) => setTimeout(r, 400));
    expect(h.status).toBe(GOAL_STATUS.EXECUTING);
  });

  it("a dead server never settles sendGoal, and is not available", async () => {
    const { c, world } = await client();
    world.killServer("/jtc/follow_joint_trajectory");
    expect(c.isActionServerAvailable()).toBe(false);
    expect(await c.waitForServer(30)).toBe(false);
    const settled = await Promise.race([c.sendGoal(goal(J, [point([1, 1], [0, 0], 0.1)])).then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 200))]);
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
