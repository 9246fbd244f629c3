// `npm run ros:setup`: builds rclnodejs, armbridge's optional ROS 2 client,
// against the ROS 2 sourced in this shell, in one command.
//
// package.json denies rclnodejs's install scripts (allowScripts: {rclnodejs:
// false}), so a plain `npm install` on a machine without ROS does not try to
// compile it. npm 11 keeps a denied package's scripts from running even under
// `npm rebuild rclnodejs`; `--dangerously-allow-all-scripts` lifts the policy
// for that one run, and naming the package limits the rebuild to it
// (npm/lib/commands/rebuild.js: only the nodes matching the named specs are
// rebuilt). So this runs exactly rclnodejs's own install (pick a prebuilt
// addon for $ROS_DISTRO or compile one) and postinstall (generate the
// message classes of every package on AMENT_PREFIX_PATH), then checks that
// the module loads.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const fail = (why) => {
  console.error(`ros:setup: ${why}`);
  process.exit(1);
};

if (!process.env.ROS_DISTRO || !process.env.AMENT_PREFIX_PATH) {
  fail("no ROS 2 in this shell (ROS_DISTRO / AMENT_PREFIX_PATH unset). Run `source /opt/ros/<distro>/setup.bash` (humble, jazzy, ...) first, then `npm run ros:setup` again.");
}
if (!existsSync(join(root, "node_modules", "rclnodejs", "package.json"))) {
  fail("rclnodejs is not installed (an optional dependency npm skipped?). Run `npm install` first.");
}

console.log(`ros:setup: building rclnodejs against ROS 2 ${process.env.ROS_DISTRO} (this takes a few minutes the first time)`);
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
const rebuild = spawnSync(npm[0], [...npm.slice(1), "rebuild", "rclnodejs", "--dangerously-allow-all-scripts", "--foreground-scripts"], { cwd: root, stdio: "inherit" });
if (rebuild.status !== 0) fail(`npm rebuild rclnodejs failed (exit ${rebuild.status ?? rebuild.signal}); its output above says why (a C++ toolchain and the ROS 2 development headers are needed when no prebuilt addon matches).`);

const probe = spawnSync(process.execPath, ["--input-type=module", "-e", "const m = await import('rclnodejs'); const r = m.default ?? m; if (typeof r.init !== 'function') process.exit(3);"], { cwd: root, stdio: "inherit", timeout: 120_000 });
if (probe.status !== 0) fail("rclnodejs was built but does not load; see the error above.");
console.log("ros:setup: rclnodejs loads. Check with: armbridge serve --ros --config <your arm config>");
