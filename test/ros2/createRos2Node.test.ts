import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { isArmbridgeError } from "../../src/errors.js";
import { Ros2Host } from "../../src/transport/ros2/index.js";
import { loadRclnodejs } from "../../src/transport/ros2/loadRclnodejs.js";
import { createRos2TransportOnDouble, type Ros2OnDouble } from "../doubles/createRos2TransportOnDouble.js";

const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];
let open: Ros2OnDouble[] = [];
afterEach(async () => {
  for (const o of open) await o.close();
  open = [];
});

describe("the armbridge node and its parameters", () => {
  it("--ros-args -p and --params-file override the file options and the arm config", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ros-"));
    const params = join(dir, "params.yaml");
    writeFileSync(
      params,
      [
        "armbridge:",
        "  ros__parameters:",
        "    controller_names: [arm_controller]",
        "    controllers:",
        "      arm_controller:",
        `        joints: [${JOINTS.join(", ")}]`,
        "        action_name: /arm_controller/follow_joint_trajectory",
        "    tolerances:",
        "      position: 0.02",
      ].join("\n"),
    );
    const o = await createRos2TransportOnDouble(
      loadConfig(),
      { joint_states_topic: "/file/joint_states" },
      {
        controllers: [
          { name: "arm_controller", actionName: "/arm_controller/follow_joint_trajectory", joints: JOINTS },
        ],
        jointStatesTopic: "/robot/joint_states",
        argv: [
          "node",
          "armbridge",
          "--ros-args",
          "--params-file",
          params,
          "-p",
          "joint_states_topic:=/robot/joint_states",
          "-p",
          "server_wait_ms:=3000",
          "-p",
          "gripper_kind:=parallel_gripper",
          "--",
        ],
      },
    );
    open.push(o);
    expect(o.transport.config.arm.controllers).toEqual([{ name: "arm_controller", joints: JOINTS }]);
    expect(o.transport.config.tolerances.position).toBe(0.02);
    await o.transport.open(AbortSignal.timeout(5000));
    expect(o.transport.latestStatus()?.axes.elbow).toBeDefined();
    const world = o.double.world;
    expect(world.controllers.has("arm_controller")).toBe(true);
    // An INTEGER override (bigint in rclnodejs) where a double was declared is accepted.
    const node = [...o.double.rcl.nodes][0]!;
    expect(node.name()).toBe("armbridge");
    expect(node.getParameter("server_wait_ms").value).toBe(3000n);
    expect(node.getParameter("gripper_kind").value).toBe("parallel_gripper");
    expect(node.spinning).toBe(true);
  });

  it("the shipped launch/armbridge_params.yaml is accepted as-is", async () => {
    const o = await createRos2TransportOnDouble(
      loadConfig(),
      {},
      {
        argv: [
          "node",
          "armbridge",
          "--ros-args",
          "--params-file",
          join(packageRoot(), "launch", "armbridge_params.yaml"),
          "--",
        ],
      },
    );
    open.push(o);
    await o.transport.open(AbortSignal.timeout(5000));
    expect(o.transport.config.arm.controllers.map((c) => c.name)).toEqual(["joint_trajectory_controller"]);
  });

  it("removes rclnodejs's SIGINT handler by default, so close() owns shutdown", async () => {
    const o = await createRos2TransportOnDouble(loadConfig());
    open.push(o);
    expect(o.double.rcl.sigintHandlerInstalled).toBe(false);
  });

  it("a bad parameter value is a config error naming it, and rclnodejs is shut down again", async () => {
    await expect(
      createRos2TransportOnDouble(
        loadConfig(),
        {},
        { argv: ["node", "armbridge", "--ros-args", "-p", "goal_time_tolerance:=0.0"] },
      ),
    ).rejects.toSatisfy(
      (e) =>
        isArmbridgeError(e, "ARMB_ERR_CONFIG_INVALID") && String(e.details.issues).includes("goal_time_tolerance_s"),
    );
  });

  it.each([["tolerances.position:=-0.01"], ["tolerances.stopped_velocity:=0.0"]])(
    "a tolerance parameter the config itself would refuse (%s) is a config error naming it; it used to be taken as is",
    async (param) => {
      await expect(
        createRos2TransportOnDouble(loadConfig(), {}, { argv: ["node", "armbridge", "--ros-args", "-p", param, "--"] }),
      ).rejects.toSatisfy(
        (e) =>
          isArmbridgeError(e, "ARMB_ERR_CONFIG_INVALID") &&
          String(e.details.issues).includes(param.split(":=")[0]!) &&
          String(e.details.path).includes("ROS parameters"),
      );
    },
  );

  it("a controller that leaves a joint undriven is refused", async () => {
    await expect(
      createRos2TransportOnDouble(
        loadConfig(),
        {},
        {
          argv: [
            "node",
            "armbridge",
            "--ros-args",
            "-p",
            "controller_names:=[arm]",
            "-p",
            "controllers.arm.joints:=[elbow]",
          ],
        },
      ),
    ).rejects.toSatisfy(
      (e) =>
        isArmbridgeError(e, "ARMB_ERR_CONFIG_INVALID") &&
        String(e.details.issues).includes("shoulder_pan is in no controller"),
    );
  });
});

describe("ROS unavailable", () => {
  it("an import failure becomes ARMB_ERR_ROS_UNAVAILABLE with the reason", async () => {
    const importer = () => Promise.reject(new Error("librcl.so: cannot open shared object file"));
    await expect(loadRclnodejs({ importer })).rejects.toSatisfy(
      (e) => isArmbridgeError(e, "ARMB_ERR_ROS_UNAVAILABLE") && String(e.details.reason).includes("librcl.so"),
    );
  });

  it("a module without the rclnodejs surface is refused", async () => {
    await expect(loadRclnodejs({ importer: () => Promise.resolve({ default: {} }) })).rejects.toSatisfy((e) =>
      isArmbridgeError(e, "ARMB_ERR_ROS_UNAVAILABLE"),
    );
  });

  it("without a sourced ROS 2 the import is not even attempted", async () => {
    await expect(loadRclnodejs({ env: {} })).rejects.toSatisfy(
      (e) => isArmbridgeError(e, "ARMB_ERR_ROS_UNAVAILABLE") && String(e.details.reason).includes("ROS_DISTRO"),
    );
  });

  it.skipIf(Boolean(process.env.ROS_DISTRO))(
    "starting the ROS host without rclnodejs fails with the coded error (skipped where ROS_DISTRO is set: ROS may load)",
    async () => {
      await expect(Ros2Host.start(loadConfig())).rejects.toSatisfy((e) =>
        isArmbridgeError(e, "ARMB_ERR_ROS_UNAVAILABLE"),
      );
    },
  );
});
