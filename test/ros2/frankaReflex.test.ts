import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { frankaDouble } from "../doubles/robotDoubles.js";
import { FRANKA_REFLEX_TEXT, HARDWARE_COMPONENT, SimFrankaReflex } from "../doubles/SimFrankaReflex.js";
import { until, useRos2Double } from "./ros2OnDoubleHarness.js";

// An FR3 reflex on franka_ros2's graph (test/doubles/SimFrankaReflex.ts): the hardware and every
// controller go down, the reason is only on /rosout. Judged by the double's record of positions and calls.

const { start } = useRos2Double();
const FRANKA_PATH = join(packageRoot(), "config", "franka-fr3-ros2.yaml");
const CONTROLLER = "fr3_arm_controller";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function frankaArm() {
  const config = loadConfig(FRANKA_PATH);
  const o = await start(undefined, { distro: "jazzy", ...frankaDouble(config) }, config);
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
  const world = o.double.world;
  return { o, executor, world, fr3: new SimFrankaReflex(world) };
}

const move = (id: string, j4: number) => ({ id, name: "move_joints", args: { positions: { fr3_joint4: j4 } } });

describe("an FR3 reflex takes the hardware and every controller down", () => {
  it("mid-motion: the call and the link say it was a reflex with libfranka's text and the recovery; a HALT is latched", async () => {
    const { o, executor, world, fr3 } = await frankaArm();
    const from = world.position("fr3_joint4");
    const running = executor.execute([move("r", -1.7)], { deadlineMs: 30_000 });
    await until(o, (s) => s.axes.fr3_joint4!.position > from + 0.2);
    fr3.reflex(FRANKA_REFLEX_TEXT.jointLimits);
    const [r] = await running;
    // Ground truth: the controller went down mid-way, short of the target.
    expect(world.controllers.get(CONTROLLER)!.activeState).toBe(false);
    expect(world.position("fr3_joint4")).toBeLessThan(-1.75);
    // With the broadcaster down no JointState shows where the arm stopped: unknown, never done or faulted alone.
    expect(r!.result.status).toBe("unknown");
    expect(r!.result.message).toMatch(/reflex/);
    expect(r!.result.message).toContain("joint_position_limits_violation");
    expect(r!.result.message).toMatch(/action_server\/error_recovery/);
    // The bridge latched a HALT (source arm) whose note carries the reflex and the three steps.
    expect(executor.halts.engaged).toMatchObject({ source: "arm" });
    expect(executor.halts.engaged!.note).toContain("joint_position_limits_violation");
    expect(executor.halts.engaged!.note).toMatch(/set_hardware_component_state/);
    // The link says why, in whatever state it is in.
    const link = o.transport.linkState();
    expect(link).toMatchObject({ error_code: "ARMB_ERR_ARM_SAFETY_STOP" });
    expect(link.detail).toMatch(/reflex/);
  });

  it("recovered in the three steps, in order, and released: motions are admitted again and run", async () => {
    const { o, executor, world, fr3 } = await frankaArm();
    fr3.reflex();
    await until(o, () => o.transport.linkState().state !== "connected" && executor.halts.engaged !== undefined);
    expect(executor.halts.engaged!.note).toContain("cartesian_reflex");
    // Step 2 before step 1 fails, as franka_hardware's doc warns.
    const setHw = world.services.get("/controller_manager/set_hardware_component_state")!.createClient("", "");
    const switcher = world.services.get("/controller_manager/switch_controller")!.createClient("", "");
    const call = (client: typeof setHw, request: object) =>
      new Promise((resolve) => client.sendRequest(request, resolve));
    const active = { name: HARDWARE_COMPONENT, target_state: { id: 3, label: "active" } };
    expect(await call(setHw, active)).toEqual({ ok: false });
    fr3.errorRecovery();
    expect(await call(setHw, active)).toEqual({ ok: true });
    expect(
      await call(switcher, {
        activate_controllers: [CONTROLLER, "joint_state_broadcaster"],
        deactivate_controllers: [],
      }),
    ).toEqual({ ok: true });
    expect(fr3.calls.map((c) => [c.step, c.ok])).toEqual([
      ["set_hardware_component_state", false],
      ["error_recovery", true],
      ["set_hardware_component_state", true],
      ["switch_controller", true],
    ]);
    // The link comes back and the reflex is no longer its reason; the HALT holds until an operator releases it.
    await until(o, () => o.transport.linkState().state === "connected" && !o.transport.linkState().error_code);
    const [blocked] = await executor.execute([move("b", -2.0)], { deadlineMs: 10_000 });
    expect(blocked!.result.status).toBe("blocked");
    executor.halts.release("ops", "reflex cleared, arm recovered");
    const [r] = await executor.execute([move("a", -2.0)], { deadlineMs: 30_000 });
    expect(r!.result.status).toBe("done");
    expect(world.position("fr3_joint4")).toBeCloseTo(-2.0, 2);
  });
});
