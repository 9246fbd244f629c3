import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { observeTargets } from "../../src/executor/toolContract/observeTargets.js";
import { defineMotionTool } from "../../src/executor/toolContract/ToolDefinition.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

/**
 * Only plausible motions leave. Ground truth: the
 * FakeArm's record of what was sent, and the ledger (nothing recorded).
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const nothingLeft = (): void => {
  expect(h!.arm.sent).toHaveLength(0);
  expect(h!.ledger.list()).toHaveLength(0);
};

describe("plausible motions only", () => {
  it.each([1e-6, 1e-300, 0.049])(
    "set_gripper at speed %s is rejected before anything is recorded or sent",
    async (speed) => {
      h = await createHarness();
      const [r] = await h.executor.execute([{ id: "g1", name: "set_gripper", args: { position: 0.9, speed } }]);
      expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID" });
      expect(r!.result.status === "rejected" && r!.result.issues.map((i) => i.path)).toEqual(["speed"]);
      nothingLeft();
    },
  );

  it("a plan slower than the tool's timeout plus observe.max_ms is rejected with its computed duration", async () => {
    h = await createHarness(); // move_joints timeout 5000 ms, observe.max_ms 3000 ms
    // elbow from 1.0 to -2.6 at 0.05 × 2 rad/s: 36 s of travel at least.
    const [r] = await h.executor.execute([
      { id: "slow", name: "move_joints", args: { positions: { elbow: -2.6 }, speed: 0.05 } },
    ]);
    const result = r!.result;
    expect(result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_PLAN_REJECTED" });
    expect(result.status === "rejected" && result.issues[0]).toMatchObject({ code: "too_slow" });
    expect(result.message).toMatch(/36\.\d s/);
    expect(result.message).toMatch(/8000 ms/);
    nothingLeft();
    // The same target at full speed is fine.
    const [ok] = await h.executor.execute([
      { id: "fast", name: "move_joints", args: { positions: { elbow: -2.6 }, speed: 1 } },
    ]);
    expect(ok!.result.status).toBe("done");
  });

  it("limits.min_speed comes from the config", async () => {
    const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, unknown>;
    h = await createHarness({
      config: parseConfig(
        {
          ...raw,
          arm: {
            ...(raw.arm as object),
            urdf: join(dirname(DEFAULT_CONFIG_PATH), String((raw.arm as { urdf?: unknown }).urdf)),
          },
          limits: { min_speed: 0.3 },
        },
        "test",
      ),
    });
    const [r] = await h.executor.execute([
      { id: "m1", name: "move_joints", args: { positions: { elbow: 1.1 }, speed: 0.2 } },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID" });
    nothingLeft();
  });

  it.each([
    ["a target outside the joint's limits", { elbow: 3.5 }, "outside_limits"],
    ["a target that is not a number", { elbow: Number.NaN }, "not_finite"],
    // The fake arm's wire is float64 (see motionIssues.test.ts for float32 and servo counts).
    ["a target beyond any limit", { elbow: 1e39 }, "outside_limits"],
    ["an axis the arm does not have", { tail: 0.1 }, "unknown_axis"],
  ])("a tool whose plan has %s is refused at plan admission", async (_what, targets, code) => {
    h = await createHarness();
    const registry = createDefaultTools(h.config).register(
      defineMotionTool({
        name: "computed_motion",
        description: "a tool that computes its targets (as inverse kinematics would)",
        args: z.object({}).strict(),
        blocking: true,
        resources: () => ["joint:elbow"],
        timeoutMs: 1000,
        onTimeout: "observe",
        plan: () => ({ targets, speed: 0.5 }),
        observe: observeTargets,
      }),
    );
    const executor = composeExecutor({ config: h.config, registry, transport: h.arm, ledger: h.ledger });
    try {
      const [r] = await executor.execute([{ id: "k1", name: "computed_motion", args: {} }]);
      expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_PLAN_REJECTED" });
      expect(r!.result.status === "rejected" && r!.result.issues.map((i) => i.code)).toEqual([code]);
      nothingLeft();
    } finally {
      executor.close();
    }
  });
});
