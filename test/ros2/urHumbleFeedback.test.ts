import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import type { ExecutorEvent } from "../../src/executor/ExecutorEvent.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { useRos2Double } from "./ros2OnDoubleHarness.js";

// UR's Humble ScaledJointTrajectoryController puts the sampled point's time_from_start in its feedback's
// desired (0 until a one-point goal ends, a staircase over more points): its trajectory time is no pace.
// With the speed_scaling_state_broadcaster's reading the motion must read as moving at the slider's pace,
// on wall time and on a sim clock, never as paused.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");
const CONTROLLER = "scaled_joint_trajectory_controller";
const SIM_TIME_ARGV = ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"];

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("UR on Humble: feedback whose desired.time_from_start does not advance", () => {
  it.each([
    ["wall time", undefined, 1],
    ["a sim clock at 0.5× real time", 0.5, 0.5],
  ] as const)(
    "on %s, with the slider at 30 percent the motion reads as paced by the slider, not paused, and settles done by completion",
    async (_, simTimeRate, simRate) => {
      const config = loadConfig(UR_PATH);
      const o = await start(
        undefined,
        {
          ...urDriverDouble(config, 0.3),
          distro: "humble",
          ...(simTimeRate !== undefined ? { simTimeRate, argv: SIM_TIME_ARGV } : {}),
        },
        config,
      );
      const ledger = IntentLedger.open(":memory:");
      const executor = composeExecutor({
        config: o.transport.config,
        registry: createDefaultTools(o.transport.config),
        transport: o.transport,
        ledger,
      });
      cleanups.push(() => {
        executor.close();
        ledger.close();
      });
      const events: ExecutorEvent[] = [];
      executor.onEvent((e) => events.push(e));
      const jtc = o.double.world.controllers.get(CONTROLLER)!;
      const [r] = await executor.execute(
        [{ id: "h", name: "move_joints", args: { positions: { wrist_3_joint: 0.6 }, speed: 0.4 } }],
        { deadlineMs: 60_000 },
      );
      expect(r!.result).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
      expect(r!.result.message).not.toMatch(/paused/);
      // Ground truth: the controller ran the goal to its end, its feedback's trajectory time stood at 0 a while.
      expect(jtc.goals).toHaveLength(1);
      expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
      expect(o.double.world.position("wrist_3_joint")).toBeCloseTo(0.6, 2);
      const zeros = jtc.feedbackTimesFromStart.filter((t) => t === 0).length;
      expect(zeros).toBeGreaterThan(20);
      const paced = events.filter((e) => e.type === "paced");
      expect(paced.length).toBeGreaterThan(0);
      let fromFeedback = 0;
      for (const e of paced) {
        if (e.type !== "paced") continue;
        expect(e.pace.paused).toBe(false);
        // Before the first feedback the broadcaster alone says 0.3; from the feedback on, trajectory time per wall second.
        if (!/feedback/.test(e.pace.source)) continue;
        fromFeedback++;
        expect(e.pace.factor).toBeGreaterThan(0.3 * simRate * 0.6);
        expect(e.pace.factor).toBeLessThan(0.3 * simRate * 1.4);
      }
      // On wall time the feedback's pace is the broadcaster's 0.3 as before: no new event; on a sim clock it is new.
      if (simTimeRate !== undefined) expect(fromFeedback).toBeGreaterThan(0);
    },
    90_000,
  );
});
