import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { geminiTools } from "../../src/surfaces/gemini/geminiTools.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { testConfig } from "../support/testConfig.js";

type Schema = {
  properties: Record<string, { description?: string; enum?: string[]; anyOf?: unknown[] }>;
  required?: string[];
};

describe("the Cartesian tools' declarations tell a model the units and the frame", () => {
  const decls = createDefaultTools(testConfig()).declarations();
  const byName = new Map(decls.map((d) => [d.name, d]));

  it("move_to_point: metres, the base frame (z up) by default, the named frames it accepts; BLOCKING like every motion", () => {
    const d = byName.get("move_to_point")!;
    expect(d.behavior).toBe("BLOCKING");
    expect(d.description).toMatch(/metres/);
    expect(d.description).toMatch(/base frame \(base_link: origin at the base, z up\)/);
    expect(d.description).toMatch(/safety envelope/);
    const schema = d.parametersJsonSchema as Schema;
    expect(schema.required?.sort()).toEqual(["x", "y", "z"]);
    expect(schema.properties.x!.description).toMatch(/metres/);
    expect(schema.properties.frame!.enum).toEqual(["base_link", "world"]);
  });

  it("move_to_pose: position in metres, orientation as roll/pitch/yaw radians or a quaternion", () => {
    const d = byName.get("move_to_pose")!;
    const schema = d.parametersJsonSchema as Schema;
    expect(schema.required?.sort()).toEqual(["orientation", "position"]);
    expect(schema.properties.orientation!.anyOf).toHaveLength(2);
    expect(schema.properties.orientation!.description).toMatch(/radians/);
    expect(schema.properties.orientation!.description).toMatch(/quaternion/);
  });

  it("get_arm_state says where end_effector is expressed", () => {
    expect(byName.get("get_arm_state")!.description).toMatch(/end_effector: .*metres.*base frame/);
  });
});

describe.each(["so101.yaml", "koch-follower.yaml"])(
  "the shipped five-axis config %s declares position-only Cartesian control, in metres, in its base frame",
  (file) => {
    const registry = createDefaultTools(loadConfig(join(packageRoot(), "config", file)));

    it("move_to_point says only the position is controlled; no move_to_pose is declared; Gemini gets the same text", () => {
      const d = registry.declarations().find((x) => x.name === "move_to_point")!;
      expect(d.description).toMatch(/metres in the arm's base frame \(base_link: origin at the base, z up\)/);
      expect(d.description).toMatch(/5 axes, so only the position is controlled/);
      expect(registry.declarations().map((x) => x.name)).not.toContain("move_to_pose");
      // Live sends the declaration's text as it is; the unary endpoint adds only that the call blocks.
      const live = geminiTools(registry, { endpoint: "bidiGenerateContent" })[0]!.functionDeclarations!.find(
        (f) => f.name === "move_to_point",
      )!;
      expect(live.description).toBe(d.description);
      const gemini = geminiTools(registry, { endpoint: "generateContent" })[0]!.functionDeclarations!.find(
        (f) => f.name === "move_to_point",
      )!;
      expect(gemini.description?.startsWith(d.description)).toBe(true);
      expect(JSON.stringify(gemini.parametersJsonSchema)).toMatch(/in metres/);
    });
  },
);
