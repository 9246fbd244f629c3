import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";

/** Another arm than testConfig's: the same joint names, but the elbow's limits differ (what a HELLO reports). */
export function otherArmConfig(): ArmConfig {
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as {
    arm: { joints: Array<Record<string, unknown>>; urdf?: string };
  };
  raw.arm.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm.urdf));
  raw.arm.joints = raw.arm.joints.map((j) => (j.name === "elbow" ? { ...j, min: -2.5, max: 2.5 } : j));
  return parseConfig(raw, "another arm (test)");
}
