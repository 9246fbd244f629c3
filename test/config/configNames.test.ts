import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";

/**
 * Config names index objects everywhere, so a name
 * inherited from Object.prototype is refused at load, with the config's own
 * code — as is an empty named pose, and a number the float32 wire cannot carry.
 */
const base = (): Record<string, Record<string, unknown>> => parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
const withArm = (edit: (arm: Record<string, unknown>) => void): unknown => {
  const raw = base();
  edit(raw.arm!);
  return raw;
};
const joints = (arm: Record<string, unknown>) => arm.joints as Record<string, unknown>[];
const refused = (raw: unknown) => expect(() => parseConfig(raw, "test")).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }));

describe("config names and numbers", () => {
  it("the default config still loads, with limits.min_speed defaulting to 0.05", () => {
    expect(parseConfig(base(), "test").limits.minSpeed).toBe(0.05);
    expect(parseConfig({ ...base(), limits: { min_speed: 0.2 } }, "test").limits.minSpeed).toBe(0.2);
  });

  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])("a joint named %s is refused", (name) => {
    refused(
      withArm((arm) => {
        joints(arm)[2]!.name = name;
        arm.named_poses = { bent: { [name]: 1.0 } }; // consistent otherwise: only the name is wrong
      }),
    );
  });

  it("a gripper or a controller named after a built-in is refused", () => {
    refused(withArm((arm) => ((arm.gripper as Record<string, unknown>).name = "toString")));
    refused(withArm((arm) => (arm.controllers = [{ name: "constructor", joints: ["elbow"] }])));
  });

  it("a pose named __proto__ is refused, not silently dropped (YAML and JSON alike)", () => {
    const yaml = parse("__proto__: { elbow: 1.0 }\nhome: { elbow: 1.0 }\n") as Record<string, unknown>;
    expect(Object.keys(yaml)).toContain("__proto__");
    refused(withArm((arm) => (arm.named_poses = yaml)));
    refused(withArm((arm) => (arm.named_poses = JSON.parse('{"__proto__": {"elbow": 1.0}}') as unknown)));
    refused(withArm((arm) => (arm.named_poses = { constructor: { elbow: 1.0 } })));
  });

  it("a pose naming a joint __proto__ is refused", () => {
    refused(withArm((arm) => (arm.named_poses = { home: JSON.parse('{"__proto__": 1.0, "elbow": 1.0}') as unknown })));
  });

  it("an empty named pose is refused", () => {
    refused(withArm((arm) => (arm.named_poses = { nowhere: {} })));
  });

  it("numbers the float32 wire cannot carry are refused", () => {
    refused(withArm((arm) => (joints(arm)[0]!.max_velocity = 1e-50)));
    refused(withArm((arm) => (joints(arm)[0]!.max = 1e39)));
    refused({ ...base(), limits: { min_speed: 1e-300 } });
    refused({ ...base(), limits: { min_speed: 0 } });
    refused({ ...base(), limits: { min_speed: 1.5 } });
  });
});
