import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { GOAL_STATUS, isHaltGoal, motionGoals } from "../doubles/rclnodejsDouble.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { jtcTraits } from "../doubles/controllerVersions.js";
import type { SimTrajectoryController } from "../doubles/SimTrajectoryController.js";
import { until, useRos2Double } from "./ros2OnDoubleHarness.js";

// Rolling/Lyrical JTC (ros2_controllers ≥ 6.8) blends a new goal into the running trajectory from its
// *planned* state (allow_trajectory_replacement, default true): a halt there must be timed from the planned
// velocity v/s, not the measured v. Judged by the double's record of every control cycle's command.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");
const CONTROLLER = "joint_trajectory_controller";
/** shoulder_pan_joint's max_acceleration in config/ur5e-ros2.yaml. */
const MAX_ACCELERATION = 2.0;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The docs' recipe for ur_robot_driver ≥ 6.0: the shipped config with the controller renamed. */
function rollingUrConfig() {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-ur-rolling-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "ur5e-ros2-jtc.yaml");
  writeFileSync(path, readFileSync(UR_PATH, "utf8").replaceAll("scaled_joint_trajectory_controller", CONTROLLER));
  return loadConfig(path);
}

/** The hold goal's commanded samples for one joint: peak |acceleration| and how far it went past where it stopped. */
function holdRecord(jtc: SimTrajectoryController, joint: string) {
  const hold = jtc.goals.find(isHaltGoal);
  expect(hold).toBeDefined();
  const i = jtc.options.joints.indexOf(joint);
  const samples = jtc.commanded.filter((c) => c.goalId === hold!.id);
  expect(samples.length).toBeGreaterThan(10);
  const positions = samples.map((c) => c.positions[i]!);
  const final = positions[positions.length - 1]!;
  return {
    hold: hold!,
    peakAcceleration: Math.max(...samples.map((c) => Math.abs(c.accelerations[i]!))),
    // The motion is positive: anything above the final command is an overshoot the arm has to come back from.
    overshoot: Math.max(...positions) - final,
    reversed: samples.some((c) => c.velocities[i]! < -1e-6),
  };
}

describe("UR on Rolling JTC: a halt blended from the planned state", () => {
  it("the double blends from 6.8.0 (#2401) on Rolling only; Jazzy and Humble replace", () => {
    expect(jtcTraits("rolling", "6.7.0").trajectoryReplacement).toBe("replace");
    expect(jtcTraits("rolling", "6.8.0").trajectoryReplacement).toBe("blend");
    expect(jtcTraits("jazzy").trajectoryReplacement).toBe("replace");
    expect(jtcTraits("humble").trajectoryReplacement).toBe("replace");
  });

  it.each([0.3, 0.1])(
    "at %s speed scaling the hold goal brakes within max_acceleration and does not overshoot",
    async (scaling) => {
      const config = rollingUrConfig();
      const o = await start(undefined, urDriverDouble(config, scaling, "stock_jtc"), config);
      const jtc = o.double.world.controllers.get(CONTROLLER)!;
      expect(o.double.world.distro).toBe("rolling");
      expect(jtc.traits.trajectoryReplacement).toBe("blend");
      // Read at start from the controller's parameters: the halt's timing depends on it.
      expect(o.transport.facts!.controllers.get(CONTROLLER)).toMatchObject({ blendsNewGoals: true });
      expect(o.transport.facts!.lines.join("\n")).toMatch(/blends in from the planned state/);
      const running = o.transport.runMotion(
        { actionId: `rolling-${scaling}`, targets: { shoulder_pan_joint: 1.5 }, speed: 1 },
        AbortSignal.timeout(60_000),
      );
      // At cruise: the slider's share of the 1.0 rad/s cap.
      await until(o, (s) => s.axes.shoulder_pan_joint!.velocity > 0.95 * scaling, 20_000);
      const halt = await o.transport.halt({ signal: AbortSignal.timeout(10_000) });
      expect(halt.halted).toBe(true);
      const end = await running;
      expect(end.kind === "ended" ? end.record.state : end.kind).toBe("stopped");
      expect(motionGoals(jtc.goals)).toHaveLength(1);
      expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
      // The whole hold, to its end: the arm reads still on /joint_states before the last commands go out.
      await until(o, () => jtc.goals.find(isHaltGoal)?.status === GOAL_STATUS.SUCCEEDED, 15_000);
      const r = holdRecord(jtc, "shoulder_pan_joint");
      // The blend leaves from the planned velocity: the commanded velocity does not step.
      expect(r.hold.startVelocityStep).toBeLessThan(0.02);
      expect(r.peakAcceleration).toBeGreaterThan(0);
      expect(r.peakAcceleration).toBeLessThanOrEqual(MAX_ACCELERATION * 1.02);
      expect(r.reversed).toBe(false);
      expect(r.overshoot).toBeLessThan(1e-4);
      expect(o.double.world.position("shoulder_pan_joint")).toBeLessThan(1.5);
    },
    90_000,
  );
});
