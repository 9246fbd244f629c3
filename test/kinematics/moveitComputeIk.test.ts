import { afterEach, describe, expect, it } from "vitest";
import {
  COMPUTE_IK_SERVICE,
  COMPUTE_IK_TYPE,
  computeIkWithMoveIt,
  type ComputeIkRequest,
} from "../../src/kinematics/moveitComputeIk.js";
import { ComputeIkServiceDouble } from "../doubles/computeIkDouble.js";

const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];
const request: ComputeIkRequest = {
  group: "arm",
  frame: "base_link",
  tipLink: "tool0",
  jointNames: JOINTS,
  seed: [0, -0.5, 1, -0.5, 0, 0],
  position: [-0.5, -0.2, 0.3],
  orientation: { x: 1, y: 0, z: 0, w: 0 },
  solveTimeoutMs: 1500,
  avoidCollisions: true,
};

let service: ComputeIkServiceDouble | undefined;
afterEach(() => {
  service?.close();
  service = undefined;
});

describe("kinematics: moveit — compute_ik on the service double", () => {
  it("sends the pose in the base frame, the tip link, the group and the current joints as the seed; reads the answer back by joint name", async () => {
    const solution = { shoulder_pan: 0.1, shoulder_lift: -0.7, elbow: 1.2, wrist_1: -0.4, wrist_2: 1.5, wrist_3: 0.2 };
    service = new ComputeIkServiceDouble(() => ({ joints: solution, code: 1 }));
    const r = await computeIkWithMoveIt(service.createClient(COMPUTE_IK_TYPE, COMPUTE_IK_SERVICE), request, {
      timeoutMs: 2000,
    });
    expect(r.ok).toBe(true);
    if (r.ok) expect(Array.from(r.q)).toEqual(JOINTS.map((j) => solution[j as keyof typeof solution]));
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]!.ik_request).toEqual({
      group_name: "arm",
      robot_state: { joint_state: { name: JOINTS, position: [0, -0.5, 1, -0.5, 0, 0] } },
      avoid_collisions: true,
      ik_link_name: "tool0",
      pose_stamped: {
        header: { frame_id: "base_link" },
        pose: { position: { x: -0.5, y: -0.2, z: 0.3 }, orientation: { x: 1, y: 0, z: 0, w: 0 } },
      },
      timeout: { sec: 1, nanosec: 500_000_000 },
    });
  });

  it("NO_IK_SOLUTION is an unreachable target; other MoveIt codes are named", async () => {
    service = new ComputeIkServiceDouble((m) => ({ code: m.ik_request.pose_stamped.pose.position.x > 1 ? -31 : -15 }));
    const client = service.createClient(COMPUTE_IK_TYPE, COMPUTE_IK_SERVICE);
    const far = await computeIkWithMoveIt(client, { ...request, position: [2, 0, 0] }, { timeoutMs: 2000 });
    expect(far).toEqual({ ok: false, unreachable: true, reason: "MoveIt's compute_ik answered NO_IK_SOLUTION" });
    const badGroup = await computeIkWithMoveIt(client, request, { timeoutMs: 2000 });
    expect(badGroup).toMatchObject({
      ok: false,
      unreachable: false,
      reason: expect.stringContaining("INVALID_GROUP_NAME") as unknown,
    });
  });

  it("SUCCESS that leaves out a chain joint is not a solution", async () => {
    service = new ComputeIkServiceDouble(() => ({ joints: { shoulder_pan: 0.1 }, code: 1 }));
    const r = await computeIkWithMoveIt(service.createClient(COMPUTE_IK_TYPE, COMPUTE_IK_SERVICE), request, {
      timeoutMs: 2000,
    });
    expect(r).toMatchObject({
      ok: false,
      unreachable: false,
      reason: expect.stringContaining("without a position for shoulder_lift") as unknown,
    });
  });

  it("a move_group that never answers: our wait ends at the deadline (ARMB_ERR_ROS_TIMEOUT), and a shutdown signal ends it sooner", async () => {
    service = new ComputeIkServiceDouble(() => undefined);
    const client = service.createClient(COMPUTE_IK_TYPE, COMPUTE_IK_SERVICE);
    await expect(computeIkWithMoveIt(client, request, { timeoutMs: 50 })).rejects.toMatchObject({
      code: "ARMB_ERR_ROS_TIMEOUT",
    });
    const shutdown = new AbortController();
    const waiting = computeIkWithMoveIt(client, request, { timeoutMs: 60_000, signal: shutdown.signal });
    shutdown.abort();
    await expect(waiting).rejects.toMatchObject({ code: "ARMB_ERR_ROS_TIMEOUT" });
  });
});
