import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";

// `npm run ros:setup` (scripts/setupRos.mjs) is the one install command for rclnodejs. Its build needs a
// sourced ROS 2, which this machine cannot have; what it does without one is tested here.
describe("npm run ros:setup", () => {
  const script = join(packageRoot(), "scripts", "setupRos.mjs");

  it("refuses at once, saying what to source, when no ROS 2 is in the environment (nothing is rebuilt)", () => {
    const env = { ...process.env };
    delete env.ROS_DISTRO;
    delete env.AMENT_PREFIX_PATH;
    const run = spawnSync(process.execPath, [script], { env, encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/source \/opt\/ros\/<distro>\/setup\.bash/);
    expect(run.stdout).not.toMatch(/building rclnodejs/);
  });

  it("is the package's ros:setup script, and lifts npm's allowScripts denial for rclnodejs alone", async () => {
    const pkg = (await import(join(packageRoot(), "package.json"), { with: { type: "json" } })) as {
      default: { scripts: Record<string, string>; allowScripts: Record<string, boolean> };
    };
    expect(pkg.default.scripts["ros:setup"]).toBe("node scripts/setupRos.mjs");
    expect(pkg.default.allowScripts.rclnodejs).toBe(false);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(script, "utf8")).toMatch(/"rebuild", "rclnodejs", "--dangerously-allow-all-scripts"/);
  });
});
