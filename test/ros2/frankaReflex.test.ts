import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { frankaDouble } from "../doubles/robotDoubles.js";
import { ERROR_RECOVERY, FRANKA_REFLEX_TEXT, HARDWARE_COMPONENT, SimFrankaReflex } from "../doubles/SimFrankaReflex.js";
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

  it("the transport's recovery runs the three steps in order; released, motions are admitted again and run", async () => {
    const { o, executor, world, fr3 } = await frankaArm();
    fr3.reflex();
    await until(o, () => o.transport.linkState().state !== "connected" && executor.halts.engaged !== undefined);
    expect(executor.halts.engaged!.note).toContain("cartesian_reflex");
    const recovery = o.transport.armRecovery;
    expect(recovery.plan().map((s) => s.step)).toEqual([
      "error_recovery",
      "set_hardware_component_state",
      "switch_controller",
    ]);
    const steps = await recovery.run(AbortSignal.timeout(20_000));
    expect(steps.map((s) => s.outcome)).toEqual(["done", "done", "done"]);
    // Ground truth: the double saw the three calls in the documented order, each accepted.
    expect(fr3.calls.map((c) => [c.step, c.ok])).toEqual([
      ["error_recovery", true],
      ["set_hardware_component_state", true],
      ["switch_controller", true],
    ]);
    expect(fr3.calls[1]!.request).toMatchObject({ name: HARDWARE_COMPONENT, target_state: { label: "active" } });
    expect(fr3.calls[2]!.request).toMatchObject({ activate_controllers: [CONTROLLER, "joint_state_broadcaster"] });
    // The link comes back and the reflex is no longer its reason; the HALT holds until an operator releases it.
    await until(o, () => o.transport.linkState().state === "connected" && !o.transport.linkState().error_code);
    const [blocked] = await executor.execute([move("b", -2.0)], { deadlineMs: 10_000 });
    expect(blocked!.result.status).toBe("blocked");
    executor.halts.release("ops", "reflex cleared, arm recovered");
    const [r] = await executor.execute([move("a", -2.0)], { deadlineMs: 30_000 });
    expect(r!.result.status).toBe("done");
    expect(world.position("fr3_joint4")).toBeCloseTo(-2.0, 2);
  });

  it("a step out of order fails, and the recovery stops at the first failure", async () => {
    const { o, world, fr3 } = await frankaArm();
    fr3.reflex();
    // Step 2 before step 1 fails, as franka_hardware's doc warns.
    const setHw = world.services.get("/controller_manager/set_hardware_component_state")!.createClient("", "");
    const answer = await new Promise((resolve) =>
      setHw.sendRequest({ name: HARDWARE_COMPONENT, target_state: { id: 3, label: "active" } }, resolve),
    );
    expect(answer).toEqual({ ok: false });
    // A graph without the ErrorRecovery server: the first step fails, the others are not run.
    world.servers.delete(ERROR_RECOVERY);
    const steps = await o.transport.armRecovery.run(AbortSignal.timeout(20_000));
    expect(steps.map((s) => s.outcome)).toEqual(["failed", "not_run", "not_run"]);
    expect(steps[0]!.detail).toMatch(/no \/action_server\/error_recovery/);
    expect(fr3.calls.map((c) => c.step)).toEqual(["set_hardware_component_state"]);
  });

  it("a reflex recovered in place (the broadcaster stays up): the link stays connected with the reason until the recovery succeeds", async () => {
    const { o, executor, world, fr3 } = await frankaArm();
    fr3.reflex(FRANKA_REFLEX_TEXT.cartesian, { inPlace: true });
    await until(o, () => executor.halts.engaged !== undefined);
    expect(o.transport.linkState()).toMatchObject({ state: "connected", error_code: "ARMB_ERR_ARM_SAFETY_STOP" });
    const steps = await o.transport.armRecovery.run(AbortSignal.timeout(20_000));
    expect(steps.map((s) => s.outcome)).toEqual(["done", "done", "done"]);
    expect(world.controllers.get(CONTROLLER)!.activeState).toBe(true);
    expect(o.transport.linkState().error_code).toBeUndefined();
    executor.halts.release("ops", "recovered in place");
    const [r] = await executor.execute([move("a", -2.0)], { deadlineMs: 30_000 });
    expect(r!.result.status).toBe("done");
    expect(world.position("fr3_joint4")).toBeCloseTo(-2.0, 2);
  });
});
