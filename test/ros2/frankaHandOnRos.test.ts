import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { frankaDouble } from "../doubles/robotDoubles.js";
import { until, useRos2Double } from "./ros2OnDoubleHarness.js";

// The Franka Hand before homing: libfranka reports max_width 0 until the Hand is homed (franka_ros#276), so
// franka_gripper refuses every opening as out of range and says why only on /rosout. Judged by the double's record.

const { start } = useRos2Double();
const FR3_PATH = join(packageRoot(), "config", "franka-fr3-ros2.yaml");

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function unhomedHand() {
  const config = loadConfig(FR3_PATH);
  const g = config.ros2!.gripper!;
  const sim = {
    distro: "jazzy" as const,
    ...frankaDouble(config),
    frankaGripper: {
      actionName: g.actionName,
      joints: ["fr3_finger_joint1", "fr3_finger_joint2"] as const,
      maxWidth: 0.08,
      width: 0.02,
      homed: false,
    },
  };
  const o = await start(undefined, sim, config);
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
  return { o, executor, hand: o.double.world.frankaGripper! };
}

async function setGripper(executor: ReturnType<typeof composeExecutor>, id: string, position: number) {
  const [r] = await executor.execute([{ id, name: "set_gripper", args: { position } }], { deadlineMs: 10_000 });
  return r!.result;
}

describe("the Franka Hand not homed (max_width 0)", () => {
  it("opening it fails saying the Hand needs homing, with franka_gripper's own words; later commands are refused until it is homed", async () => {
    const { executor, hand, o } = await unhomedHand();
    const first = await setGripper(executor, "open", 1);
    expect(first.status, first.message).toBe("failed");
    expect(first.message).toMatch(/the Franka Hand is not homed/);
    expect(first.message).toMatch(/\/franka_gripper\/homing/);
    expect(first.message).toMatch(/Commanding out of range width! max_width = 0 command = 0\.08/);
    // The double's record: franka_gripper was asked for 80 mm, aborted it, and the fingers never moved.
    expect(hand.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(hand.commandedWidths).toEqual([0.08]);
    expect(hand.width).toBeCloseTo(0.02, 4);

    // Until homed, a gripper command is refused before anything is sent, with the same advice.
    const again = await setGripper(executor, "open-again", 0.5);
    expect(again.status, again.message).toBe("failed");
    expect(again.message).toMatch(/the Franka Hand is not homed/);
    expect(hand.commandedWidths).toEqual([0.08]);

    // Homed (the fingers run through their stroke): commands go through again.
    hand.home();
    await until(o, (s) => s.axes.gripper!.position > 0.9);
    const half = await setGripper(executor, "half", 0.5);
    expect(half, half.message).toMatchObject({ status: "done" });
    expect(hand.commandedWidths).toEqual([0.08, 0.04]);
    expect(hand.width).toBeCloseTo(0.04, 3);
  });
});
