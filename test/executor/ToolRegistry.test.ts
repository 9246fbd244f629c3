import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { observeTargets } from "../../src/executor/toolContract/observeTargets.js";
import type { ToolDefinition } from "../../src/executor/toolContract/ToolDefinition.js";
import { ToolRegistry } from "../../src/executor/toolContract/ToolRegistry.js";
import { testConfig } from "../support/testConfig.js";

const motion = {
  name: "wave",
  description: "wave the wrist",
  args: z.object({}).strict(),
  blocking: true as const,
  resources: () => ["joint:wrist_3"],
  timeoutMs: 1000,
  onTimeout: "observe" as const,
  plan: () => ({ targets: { wrist_3: 0.5 }, speed: 0.5 }),
  observe: observeTargets,
};

describe("ToolRegistry", () => {
  it("registers a complete blocking tool", () => {
    expect(new ToolRegistry().register(motion).names()).toEqual(["wave"]);
  });

  it.each([
    ["no resources", { resources: undefined }],
    ["no observation path", { observe: undefined }],
    ["retry on timeout", { onTimeout: "retry" }],
    ["no timeout", { timeoutMs: 0 }],
    ["no plan", { plan: undefined }],
  ])("refuses a blocking tool with %s (ARMB_ERR_TOOL_POLICY)", (_what, change) => {
    const broken = { ...motion, ...change } as unknown as ToolDefinition;
    expect(() => new ToolRegistry().register(broken)).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_TOOL_POLICY" }),
    );
  });

  it("refuses a blocking tool without resources at compile time too", () => {
    const { resources: _r, ...withoutResources } = motion;
    // @ts-expect-error -- resources is required on a blocking tool
    const typed: ToolDefinition = withoutResources;
    expect(typed.name).toBe("wave");
  });

  it("refuses duplicate names", () => {
    const r = new ToolRegistry().register(motion);
    expect(() => r.register(motion)).toThrow(expect.objectContaining({ code: "ARMB_ERR_TOOL_DUPLICATE" }));
  });

  it("exports Gemini declarations without local policy: JSON Schema in parametersJsonSchema, BLOCKING on motions", () => {
    const decls = createDefaultTools(testConfig()).declarations();
    expect(decls.map((d) => d.name).sort()).toEqual([
      "get_action_status",
      "get_arm_state",
      "move_joints",
      "move_to_named_pose",
      "move_to_point",
      "move_to_pose",
      "set_gripper",
      "stop",
    ]);
    for (const d of decls) {
      expect(Object.keys(d).sort()).toEqual(
        d.behavior
          ? ["behavior", "description", "name", "parametersJsonSchema"]
          : ["description", "name", "parametersJsonSchema"],
      );
      expect(d.parametersJsonSchema.type).toBe("object");
    }
    const mv = decls.find((d) => d.name === "move_joints")!;
    expect(mv.behavior).toBe("BLOCKING");
    const positions = (
      mv.parametersJsonSchema.properties as Record<
        string,
        { properties: Record<string, { minimum: number; maximum: number }> }
      >
    ).positions!;
    expect(positions.properties.elbow).toMatchObject({ minimum: -2.6, maximum: 2.6 });
    expect(decls.find((d) => d.name === "get_arm_state")!.behavior).toBeUndefined();
    expect(JSON.stringify(decls)).not.toMatch(/timeoutMs|onTimeout|resources"|"observe"/);
  });

  it("locks a controller together with its joints when the arm has one-goal-at-a-time controllers", () => {
    const config = testConfig();
    const withController = {
      ...config,
      arm: { ...config.arm, controllers: [{ name: "arm_controller", joints: ["elbow", "wrist_1"] }] },
    };
    const tool = createDefaultTools(withController).get("move_joints");
    expect(tool?.blocking && tool.resources({ positions: { elbow: 0.1 } })).toEqual([
      "controller:arm_controller",
      "joint:elbow",
    ]);
  });
});
