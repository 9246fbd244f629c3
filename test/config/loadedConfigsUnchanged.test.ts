import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/loadConfig.js";
import { loadEveryConfig } from "./loadedConfigs.js";

/** Every key of a plain value in camelCase, at every depth (the `ros2:` section has no keys that are names). */
function camelEverywhere(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelEverywhere);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camelEverywhere(field)]),
  );
}

/**
 * The values whose names in code changed: MoveIt's solve timeout, now
 * `solve_timeout_ms` in the file and `solveTimeoutMs` in code (the same
 * duration), the `ros2:` section, now camelCase in code like every other,
 * and its shortest motion, now `min_motion_ms` (the same duration).
 */
function withRenamedKeys(config: unknown): unknown {
  const { moveit, ros2, ...rest } = config as { moveit?: Record<string, unknown>; ros2?: unknown };
  const renamed: Record<string, unknown> = { ...rest };
  if (ros2 !== undefined) {
    const { minMotionS, ...others } = camelEverywhere(ros2) as Record<string, unknown>;
    renamed.ros2 = { ...others, minMotionMs: (minMotionS as number) * 1000 };
  }
  if (moveit !== undefined) {
    const { solveTimeoutS, ...others } = moveit;
    renamed.moveit = { ...others, solveTimeoutMs: (solveTimeoutS as number) * 1000 };
  }
  return renamed;
}

/**
 * Every config that loaded before the schema was split by section loads to
 * the same values: the fixture is the loader's output before the split
 * (written with ARMBRIDGE_WRITE_CONFIG_FIXTURE=1), compared key by key.
 */
const FIXTURE = join(import.meta.dirname, "fixtures", "loadedConfigs.json");

describe("loaded configs", () => {
  const now = loadEveryConfig();
  if (process.env.ARMBRIDGE_WRITE_CONFIG_FIXTURE === "1") writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
  const before = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, unknown>;

  it("covers the same configs", () => {
    expect(Object.keys(now).sort()).toEqual(Object.keys(before).sort());
  });

  it.each(Object.keys(before))("%s loads to the same values", (name) => {
    expect(now[name]).toEqual(withRenamedKeys(before[name]));
  });
});

describe("a renamed key", () => {
  const joints = [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }];

  it("still loads under its old name, converted, with a warning naming the new key", () => {
    const heard: string[] = [];
    const config = parseConfig({ arm: { joints }, approval_timeout_s: 30 }, "old", {
      onRenamedKeys: (warnings) => heard.push(...warnings.map((w) => w.message)),
    });
    expect(config.approvalTimeoutMs).toBe(30_000);
    expect(heard).toEqual(["approval_timeout_s is deprecated: use approval_timeout_ms (milliseconds)"]);
  });

  it("is refused when given under both names", () => {
    expect(() => parseConfig({ arm: { joints }, approval_timeout_s: 30, approval_timeout_ms: 30_000 })).toThrow(
      /give approval_timeout_ms only/,
    );
  });

  it("inside a section: ros2.min_motion_s loads as ros2.min_motion_ms with a warning naming it; both are refused", () => {
    const ros2 = { controllers: [{ name: "arm", action_name: "/arm/follow_joint_trajectory" }] };
    const heard: string[] = [];
    const config = parseConfig({ arm: { joints }, ros2: { ...ros2, min_motion_s: 0.25 } }, "old", {
      onRenamedKeys: (warnings) => heard.push(...warnings.map((w) => w.message)),
    });
    expect(config.ros2?.minMotionMs).toBe(250);
    expect(heard).toEqual(["ros2.min_motion_s is deprecated: use ros2.min_motion_ms (milliseconds)"]);
    expect(() =>
      parseConfig({ arm: { joints }, ros2: { ...ros2, min_motion_s: 0.25, min_motion_ms: 250 } }),
    ).toThrow(/give ros2.min_motion_ms only/);
  });
});
