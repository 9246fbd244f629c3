import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cameras } from "../../src/cameras/Cameras.js";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { DEFAULT_SPEED } from "../../src/tools/speedSchema.js";
import { FakeArm } from "../support/FakeArm.js";
import { testConfig } from "../support/testConfig.js";

// One speed convention for every tool that moves the arm: the range plan
// admission accepts ([limits.min_speed, 1]), refused at argument checking
// with the same code and path by every tool, and one default.

const config = testConfig();
const minSpeed = config.limits.minSpeed;
const firstJoint = config.arm.joints[0]!;

/** Arguments each motion tool accepts, speed aside (a pose near home, a point in the picture). */
const VALID_ARGS: Readonly<Record<string, Record<string, unknown>>> = {
  move_joints: { positions: { [firstJoint.name]: firstJoint.home } },
  move_to_named_pose: { pose: Object.keys(config.arm.namedPoses)[0] },
  set_gripper: { position: 0.5 },
  move_to_point: { x: 0.3, y: 0, z: 0.3 },
  move_to_pose: { position: { x: 0.3, y: 0, z: 0.3 }, orientation: { roll: 0, pitch: 0, yaw: 0 } },
  move_to_image_point: { camera: "overhead", point: [500, 500], height_m: 0.1 },
};

describe("every motion tool takes one speed", () => {
  let arm: FakeArm;
  let ledger: IntentLedger;
  let cameras: Cameras;
  let executor: Executor;

  beforeEach(async () => {
    arm = new FakeArm(config);
    await arm.open();
    ledger = IntentLedger.open(":memory:");
    cameras = new Cameras({ config, pose: () => undefined });
    executor = composeExecutor({ config, registry: createDefaultTools(config, { cameras }), transport: arm, ledger });
  });

  afterEach(async () => {
    executor.close();
    cameras.close();
    await arm.close();
    ledger.close();
  });

  const motionTools = (): string[] =>
    executor.registry
      .all()
      .filter((t) => t.blocking)
      .map((t) => t.name)
      .sort();

  it("covers every motion tool of the default set (a new one needs its valid arguments here)", () => {
    expect(motionTools()).toEqual(Object.keys(VALID_ARGS).sort());
  });

  it("declares the same speed to the model everywhere: [limits.min_speed, 1], the default in words, never required", () => {
    const decls = new Map(
      executor.registry
        .declarations()
        .map((d) => [d.name, d.parametersJsonSchema as { properties: Record<string, unknown>; required?: string[] }]),
    );
    for (const name of motionTools()) {
      const schema = decls.get(name)!;
      expect(schema.properties.speed, name).toEqual({
        type: "number",
        minimum: minSpeed,
        maximum: 1,
        description: `Fraction of each joint's maximum velocity, in [${minSpeed}, 1]. Default ${DEFAULT_SPEED}.`,
      });
      expect(schema.required ?? [], name).not.toContain("speed");
    }
  });

  const badSpeeds: readonly unknown[] = [0, minSpeed / 2, -0.5, 1.01, 2, "fast", null];

  it.each(badSpeeds.map((s) => [JSON.stringify(s), s] as const))(
    "refuses speed %s at argument checking, the same way for every tool; nothing is recorded or sent",
    async (_label, speed) => {
      for (const name of motionTools()) {
        const args = { ...VALID_ARGS[name], speed };
        const [response] = await executor.execute([{ id: `bad-speed-${name}`, name, args }]);
        const result = response!.result as Extract<CallResult, { status: "rejected" }>;
        expect(result.status, name).toBe("rejected");
        expect(result.error_code, name).toBe("ARMB_ERR_ARGS_INVALID");
        expect(
          result.issues.map((i) => i.path),
          name,
        ).toEqual(["speed"]);
      }
      expect(arm.sent).toEqual([]);
      expect(ledger.list({ limit: 100 })).toEqual([]);
    },
  );

  it("accepts every speed of the range on every tool's arguments, and runs a call without one at the default", () => {
    for (const name of motionTools()) {
      const tool = executor.registry.get(name)!;
      for (const speed of [minSpeed, 0.5, 1, undefined]) {
        const parsed = tool.args.safeParse({ ...VALID_ARGS[name], ...(speed === undefined ? {} : { speed }) });
        expect(parsed.success, `${name} speed ${String(speed)}`).toBe(true);
      }
    }
  });

  it("sends a call that names no speed at the default", async () => {
    const [response] = await executor.execute([
      { id: "default-speed", name: "move_joints", args: VALID_ARGS.move_joints },
    ]);
    expect(response!.result.status).toBe("done");
    expect(arm.sent.map((c) => c.speed)).toEqual([DEFAULT_SPEED]);
  });
});
