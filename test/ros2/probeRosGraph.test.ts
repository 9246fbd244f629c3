import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { installedVersion, probeRosGraph } from "../../src/transport/ros2/probeRosGraph.js";
import type { RclNode } from "../../src/transport/ros2/rclTypes.js";
import { ros2OptionsFileSchema } from "../../src/transport/ros2/Ros2Options.js";
import { resolveRos2Setup } from "../../src/transport/ros2/resolveRos2Setup.js";

/** An install prefix holding one package.xml, as colcon and the ROS debs lay them out. */
function prefixWith(pkg: string, version: string): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-prefix-"));
  mkdirSync(join(dir, "share", pkg), { recursive: true });
  writeFileSync(
    join(dir, "share", pkg, "package.xml"),
    `<?xml version="1.0"?>\n<package format="3">\n  <name>${pkg}</name>\n  <version>${version}</version>\n</package>\n`,
  );
  return dir;
}

/** A node on an empty graph: no parameter service ever answers, nobody publishes. */
const silentNode = {
  createClient: () => ({
    sendRequest: () => undefined,
    waitForService: (t?: number) => new Promise<boolean>((r) => setTimeout(() => r(false), t ?? 0)),
  }),
  destroyClient: () => undefined,
  getPublishersInfoByTopic: () => [],
} as unknown as RclNode;

describe("probeRosGraph: versions from the install, assumptions in words", () => {
  it("reads joint_trajectory_controller's version from AMENT_PREFIX_PATH", () => {
    const env = {
      AMENT_PREFIX_PATH: `${mkdtempSync(join(tmpdir(), "empty-"))}:${prefixWith("joint_trajectory_controller", "4.40.1")}`,
    };
    expect(installedVersion("joint_trajectory_controller", env)).toBe("4.40.1");
    expect(installedVersion("ur_controllers", env)).toBeUndefined();
  });

  it.each([
    ["2.36.0", false],
    ["2.37.0", true],
    ["4.10.0", false],
    ["4.42.1", true],
  ] as const)(
    "JTC %s: goal tolerances honoured %s; a graph that does not answer leaves assumptions in the log",
    async (version, honoured) => {
      const { setup } = resolveRos2Setup(loadConfig(), ros2OptionsFileSchema.parse({}));
      const facts = await probeRosGraph({
        node: silentNode,
        setup,
        env: { ROS_DISTRO: "humble", AMENT_PREFIX_PATH: prefixWith("joint_trajectory_controller", version) },
        timeoutMs: 50,
        signal: new AbortController().signal,
      });
      expect(facts.goalTolerancesHonoured).toBe(honoured);
      expect(facts.packages.joint_trajectory_controller).toBe(version);
      const log = facts.lines.join("\n");
      expect(log).toMatch(/ROS_DISTRO humble/);
      expect(log).toMatch(/parameters of \/joint_trajectory_controller not readable in time: assuming/);
      expect(log).toMatch(
        /gripper .*: gripper_command \(auto: parameters not readable; assuming gripper_action_controller\)/,
      );
    },
  );
});
