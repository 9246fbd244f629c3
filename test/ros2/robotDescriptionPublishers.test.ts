import { afterEach, describe, expect, it } from "vitest";
import { readRobotDescription } from "../../src/transport/ros2/readRobotDescription.js";
import type { Rclnodejs, RclNode } from "../../src/transport/ros2/rclTypes.js";
import { createRclnodejsDouble, type RclnodejsDoubleHandle } from "../doubles/rclnodejsDouble.js";

// Two robot_state_publishers on /robot_description (a UR driver's and ros2_robotiq_gripper's
// robotiq_control.launch.py): each keeps its own transient-local sample, and a late subscriber gets both.

const ARM = '<robot name="ur5e"><link name="a"/><link name="b"/><joint name="j" type="revolute"/></robot>';
const GRIPPER = '<robot name="robotiq_gripper"><link name="g"/></robot>';
const LATCHED = { reliability: "reliable", durability: "transient_local" } as const;

let handle: RclnodejsDoubleHandle | undefined;
afterEach(() => {
  handle?.close();
  handle = undefined;
});

async function graph(descriptions: readonly string[]): Promise<{ rcl: Rclnodejs; node: RclNode }> {
  handle = createRclnodejsDouble({ positions: {}, controllers: [] });
  descriptions.forEach((urdf, i) =>
    handle!.world.bus
      .advertise("/robot_description", "std_msgs/msg/String", `robot_state_publisher_${i}`, LATCHED)
      .publish({ data: urdf }),
  );
  await handle.rcl.init(undefined, []);
  const node = handle.rcl.createNode("armbridge_test");
  node.spin();
  return { rcl: handle.rcl as unknown as Rclnodejs, node: node as unknown as RclNode };
}

describe("readRobotDescription with more than one publisher", () => {
  it("keeps the first and says the publishers disagree, naming each robot", async () => {
    const { rcl, node } = await graph([ARM, GRIPPER]);
    const said: string[] = [];
    const urdf = await readRobotDescription(rcl, node, "/robot_description", 2000, (d) => said.push(d));
    expect(urdf).toBe(ARM);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/2 publishers of \/robot_description disagree/);
    expect(said[0]).toContain("ur5e");
    expect(said[0]).toContain("robotiq_gripper");
  });

  it("two publishers of the same description, or one publisher: nothing to say", async () => {
    for (const descriptions of [[ARM, ARM], [ARM]]) {
      const { rcl, node } = await graph(descriptions);
      const said: string[] = [];
      expect(await readRobotDescription(rcl, node, "/robot_description", 2000, (d) => said.push(d))).toBe(ARM);
      expect(said).toEqual([]);
      handle?.close();
      handle = undefined;
    }
  });
});
