import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { remoteIkOn } from "../../src/bridge/createTransport.js";
import { silentLogger } from "../../src/observability/logger.js";
import { armKinematicsOf, type ArmKinematics } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { ComputeIkServiceDouble, moveGroupLike, type ComputeIkAnswer } from "../doubles/computeIkDouble.js";
import { createRos2TransportOnDouble, type Ros2OnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { FakeArm } from "../support/FakeArm.js";
import { configWith, HOME, JOINTS, jtc, useRos2Double } from "./ros2OnDoubleHarness.js";

const { start, onCleanup } = useRos2Double();
const SIM_URDF = readFileSync(loadConfig().arm.urdf!, "utf8");

/** The default sim arm with `kinematics: moveit` (group "manipulator"), optionally patched. */
function moveitConfig(patch: (raw: Record<string, Record<string, unknown>>) => void = () => undefined): ArmConfig {
  return configWith((raw) => {
    raw.kinematics = "moveit";
    raw.moveit = { group: "manipulator", call_timeout_ms: 1000 };
    patch(raw as Record<string, Record<string, unknown>>);
  });
}

/** The transport on the double with a compute_ik service answering as `answer` says, and an executor on it. */
async function onRos(
  config: ArmConfig,
  answer: (kin: ArmKinematics) => ComputeIkAnswer,
): Promise<{ o: Ros2OnDouble; service: ComputeIkServiceDouble; executor: Executor; kin: ArmKinematics }> {
  const kin = armKinematicsOf(config)!;
  const service = new ComputeIkServiceDouble(answer(kin));
  const o = await start({}, { services: { "/compute_ik": service } }, config);
  const ledger = IntentLedger.open(":memory:");
  const executor = composeExecutor({
    config: o.transport.config,
    registry: createDefaultTools(o.transport.config, { remoteIk: await remoteIkOn(o.host, silentLogger) }),
    transport: o.transport,
    ledger,
  });
  onCleanup(() => {
    executor.close();
    ledger.close();
    service.close();
  });
  return { o, service, executor, kin };
}

const tipOf = (kin: ArmKinematics, o: Ros2OnDouble): [number, number, number] =>
  positionOf(kin.chain.tip(kin.jointNames.map((n) => o.double.world.position(n))));

describe("kinematics: moveit — Cartesian calls answered by MoveIt's compute_ik (on the rclnodejs double)", () => {
  it("move_to_point asks compute_ik with the group, the tip link, the base frame, the current joints as seed and whole-second timeout; the arm goes to MoveIt's answer", async () => {
    const { o, service, executor, kin } = await onRos(moveitConfig(), (k) =>
      moveGroupLike(k, { group: "manipulator", positionOnly: false }),
    );
    const start0 = positionOf(kin.chain.tip(HOME));
    const target: [number, number, number] = [start0[0] + 0.05, start0[1] - 0.04, start0[2] + 0.03];
    const [r] = await executor.execute([
      { id: "m1", name: "move_to_point", args: { x: target[0], y: target[1], z: target[2] } },
    ]);
    expect(r!.result.status).toBe("done");
    expect(service.requests).toHaveLength(1);
    const req = service.requests[0]!.ik_request;
    expect(req).toMatchObject({
      group_name: "manipulator",
      ik_link_name: "tool0",
      avoid_collisions: true,
      timeout: { sec: 1, nanosec: 0 },
      pose_stamped: { header: { frame_id: "base_link" } },
    });
    expect(req.robot_state.joint_state.name).toEqual(JOINTS);
    req.robot_state.joint_state.position.forEach((v, i) => expect(v).toBeCloseTo(HOME[i]!, 6));
    // Ground truth: where the double's joints are now, by FK.
    const reached = tipOf(kin, o);
    expect(Math.hypot(reached[0] - target[0], reached[1] - target[1], reached[2] - target[2])).toBeLessThan(0.002);
  });

  it("NO_IK_SOLUTION: rejected ARMB_ERR_TARGET_UNREACHABLE, no goal reaches the controller; out of reach, the closest point comes from our solver, in reach, the message suspects collisions", async () => {
    const { o, service, executor } = await onRos(moveitConfig(), () => () => ({ code: -31 }));
    const [far] = await executor.execute([{ id: "m2", name: "move_to_point", args: { x: 3, y: 0, z: 0.4 } }]);
    expect(far!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TARGET_UNREACHABLE" });
    expect(JSON.stringify(far!.result)).toMatch(
      /closest reachable point this bridge's solver found is \(-?\d\.\d{3}, -?\d\.\d{3}, -?\d\.\d{3}\) m in base_link/,
    );
    const [near] = await executor.execute([{ id: "m2b", name: "move_to_point", args: { x: 0.3, y: 0.2, z: 0.4 } }]);
    expect(near!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TARGET_UNREACHABLE" });
    expect(JSON.stringify(near!.result)).toContain("only solutions in collision");
    expect(service.requests).toHaveLength(2);
    expect(jtc(o).received).toHaveLength(0);
  });

  it("INVALID_GROUP_NAME (a group MoveIt does not know): rejected ARMB_ERR_IK_SERVICE naming it, nothing sent", async () => {
    const { o, executor } = await onRos(moveitConfig(), (k) => moveGroupLike(k, { group: "arm", positionOnly: false }));
    const [r] = await executor.execute([{ id: "m3", name: "move_to_point", args: { x: 0.3, y: 0.2, z: 0.4 } }]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_IK_SERVICE" });
    expect(JSON.stringify(r!.result)).toContain("INVALID_GROUP_NAME");
    expect(jtc(o).received).toHaveLength(0);
  });

  it("the envelope still applies to MoveIt's answer: a reachable point outside keep_in is rejected ARMB_ERR_ENVELOPE_VIOLATION, nothing sent", async () => {
    const config = moveitConfig(
      (raw) => (raw.workspace = { keep_in: { min: [-0.95, -0.95, -0.4], max: [0.95, 0.95, 0.6] }, floor_z: -0.35 }),
    );
    const { o, service, executor, kin } = await onRos(config, (k) =>
      moveGroupLike(k, { group: "manipulator", positionOnly: false }),
    );
    const p = positionOf(kin.chain.tip(HOME));
    const [r] = await executor.execute([{ id: "m4", name: "move_to_point", args: { x: p[0], y: p[1], z: 0.62 } }]);
    expect(service.requests).toHaveLength(1);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(jtc(o).received).toHaveLength(0);
  });

  it("a MoveIt whose robot differs from our URDF (its answer misses the target by our FK): rejected ARMB_ERR_URDF_MISMATCH, nothing sent", async () => {
    const { o, executor } = await onRos(moveitConfig(), (k) => {
      const real = moveGroupLike(k, { group: "manipulator", positionOnly: false });
      return (m) => {
        const a = real(m);
        return a?.joints ? { ...a, joints: { ...a.joints, elbow: (a.joints.elbow ?? 0) + 0.05 } } : a;
      };
    });
    const p = positionOf(armKinematicsOf(loadConfig())!.chain.tip(HOME));
    const [r] = await executor.execute([
      { id: "m5", name: "move_to_point", args: { x: p[0] + 0.03, y: p[1], z: p[2] } },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_URDF_MISMATCH" });
    expect(jtc(o).received).toHaveLength(0);
  });

  it("a move_group that never answers: our wait ends at moveit.call_timeout_ms, rejected ARMB_ERR_IK_SERVICE, nothing sent", async () => {
    const { o, executor } = await onRos(
      moveitConfig((raw) => (raw.moveit = { group: "manipulator", call_timeout_ms: 150 })),
      () => () => undefined,
    );
    const [r] = await executor.execute([{ id: "m6", name: "move_to_point", args: { x: 0.3, y: 0.2, z: 0.4 } }]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_IK_SERVICE" });
    expect(JSON.stringify(r!.result)).toContain("did not complete within 150 ms");
    expect(jtc(o).received).toHaveLength(0);
  });

  it("kinematics: moveit on a transport that is not ROS: start fails with ARMB_ERR_KINEMATICS_UNAVAILABLE", async () => {
    const config = moveitConfig();
    await expect(
      Bridge.start({ config, transport: { kind: "custom", transport: new FakeArm(config) }, dataDir: ":memory:" }),
    ).rejects.toMatchObject({ code: "ARMB_ERR_KINEMATICS_UNAVAILABLE" });
  });

  it("the config refuses kinematics: moveit without moveit.group", () => {
    expect(() => configWith((raw) => (raw.kinematics = "moveit"))).toThrow(/moveit/);
  });
});

/** The sim arm reading its URDF from the topic: arm.urdf removed, arm.robot_description set. */
function topicConfig(timeoutMs = 2000): ArmConfig {
  return configWith((raw) => {
    const arm = raw.arm as Record<string, unknown>;
    delete arm.urdf;
    arm.robot_description = { timeout_ms: timeoutMs };
  });
}

describe("arm.robot_description — the URDF from the /robot_description topic (on the rclnodejs double)", () => {
  it("robot_state_publisher published it (transient-local) before we joined: our late subscriber still gets it; kinematics and Cartesian tools come from it", async () => {
    const o = await start({}, { robotDescription: { urdf: SIM_URDF } }, topicConfig());
    expect(o.transport.config.arm.urdfText).toBe(SIM_URDF);
    const kin = armKinematicsOf(o.transport.config)!;
    expect(kin.source).toBe("topic /robot_description");
    expect(kin.chain.dof).toBe(6);
    expect(createDefaultTools(o.transport.config).names()).toContain("move_to_pose");
    // The subscription is gone once read.
    expect(o.double.world.bus.subscriptionCount("/robot_description")).toBe(0);
  });

  it.each([
    [
      "a joint cycle",
      SIM_URDF.replace(
        "</robot>",
        '<link name="c1"/><link name="c2"/><joint name="c1_c2" type="fixed"><parent link="c1"/><child link="c2"/></joint><joint name="c2_c1" type="fixed"><parent link="c2"/><child link="c1"/></joint></robot>',
      ),
      "ARMB_ERR_URDF_INVALID",
      /c1_c2|c2_c1/,
    ],
    [
      "an entity declaration",
      `<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]>${SIM_URDF.replace(/^<\?xml[^>]*>/, "")}`,
      "ARMB_ERR_URDF_INVALID",
      /entit/,
    ],
    [
      "limits that leave a named pose outside (stow's elbow 2.4)",
      SIM_URDF.replace('<limit lower="-2.6" upper="2.6"', '<limit lower="-2.6" upper="2.0"'),
      "ARMB_ERR_URDF_MISMATCH",
      /named_poses\.stow\.elbow/,
    ],
  ])(
    "a robot description from the ROS graph gets the same checks as a file: %s is refused at start, naming the topic",
    async (_what, urdf, code, reason) => {
      const o = await start({}, { robotDescription: { urdf } }, topicConfig());
      let caught: unknown;
      try {
        armKinematicsOf(o.transport.config);
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code });
      expect((caught as Error).message).toContain("topic /robot_description");
      expect((caught as Error).message).toMatch(reason);
    },
  );

  it("a volatile publisher that published before we joined leaves nothing for us: start fails with ARMB_ERR_ROBOT_DESCRIPTION_MISSING at the timeout", async () => {
    await expect(
      createRos2TransportOnDouble(
        topicConfig(200),
        {},
        { robotDescription: { urdf: SIM_URDF, durability: "volatile" } },
      ),
    ).rejects.toMatchObject({ code: "ARMB_ERR_ROBOT_DESCRIPTION_MISSING" });
  });

  it("no publisher on the topic: ARMB_ERR_ROBOT_DESCRIPTION_MISSING naming the topic", async () => {
    const error = await createRos2TransportOnDouble(topicConfig(150)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "ARMB_ERR_ROBOT_DESCRIPTION_MISSING" });
    expect(String((error as Error).message)).toContain("/robot_description");
  });

  it("arm.robot_description on a transport that is not ROS: start fails with ARMB_ERR_KINEMATICS_UNAVAILABLE", async () => {
    const config = topicConfig();
    await expect(
      Bridge.start({ config, transport: { kind: "custom", transport: new FakeArm(config) }, dataDir: ":memory:" }),
    ).rejects.toMatchObject({ code: "ARMB_ERR_KINEMATICS_UNAVAILABLE" });
  });

  it("the config refuses arm.urdf and arm.robot_description together", () => {
    expect(() => configWith((raw) => ((raw.arm as Record<string, unknown>).robot_description = {}))).toThrow(
      /not both/,
    );
  });
});
