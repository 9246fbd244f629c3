import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ARMBRIDGE_CALIBRATION_FORMAT, type BusCalibrationFile } from "../../src/config/busCalibrationFile.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { isArmbridgeError } from "../../src/errors.js";

const SO101 = join(packageRoot(), "config", "so101.yaml");
const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll"] as const;

/** What `armbridge calibrate` writes for the shipped SO-101 (ids 1–6): every joint swept over most of a turn. */
function complete(): BusCalibrationFile {
  const axes: BusCalibrationFile["axes"] = {};
  for (const [i, name] of JOINTS.entries()) axes[name] = { kind: "joint", id: i + 1, counts_per_rev: 4096, center: 2048, sign: 1, range_min: 100, range_max: 4000 };
  axes.gripper = { kind: "gripper", id: 6, closed: 2000, open: 3000 };
  return { format: ARMBRIDGE_CALIBRATION_FORMAT, arm: "so101", protocol: "feetech_sts", steps: { zero: "t", range: "t", direction: "t" }, axes };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armbridge-cal-checks-"));
  mkdirSync(join(dir, "urdf"));
  copyFileSync(join(packageRoot(), "config", "urdf", "so101.urdf"), join(dir, "urdf", "so101.urdf"));
  const raw = parse(readFileSync(SO101, "utf8")) as { bus: Record<string, unknown> };
  raw.bus.calibration = "arm.calibration.json";
  writeFileSync(join(dir, "so101.yaml"), stringify(raw));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function loadWith(file: unknown): { code: string; issues: string } {
  writeFileSync(join(dir, "arm.calibration.json"), JSON.stringify(file));
  try {
    loadConfig(join(dir, "so101.yaml"));
    return { code: "loaded", issues: "" };
  } catch (error) {
    if (!isArmbridgeError(error)) throw error;
    return { code: error.code, issues: String(error.details.issues) };
  }
}

describe("armbridge's own calibration file is merged and checked like LeRobot's and the YAML", () => {
  it("a complete file loads: each joint's centre, sign, counts per turn and measured travel, the gripper's closed/open", () => {
    const f = complete();
    f.axes.elbow_flex = { kind: "joint", id: 3, counts_per_rev: 4096, center: 2230, sign: -1, range_min: 300, range_max: 3900 };
    writeFileSync(join(dir, "arm.calibration.json"), JSON.stringify(f));
    const config = loadConfig(join(dir, "so101.yaml"));
    expect(config.arm.joints.find((j) => j.name === "elbow_flex")!.servo).toMatchObject({ id: 3, center: 2230, sign: -1, rangeMin: 300, rangeMax: 3900 });
    expect(config.arm.gripper!.servo).toMatchObject({ id: 6, closed: 2000, open: 3000 });
  });

  it("a joint whose configured min..max reaches past the travel swept by hand is refused, naming the file's range key", () => {
    const f = complete();
    f.axes.shoulder_pan = { kind: "joint", id: 1, counts_per_rev: 4096, center: 2048, sign: 1, range_min: 1900, range_max: 2200 };
    const r = loadWith(f);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toContain("arm.calibration.json: axes.shoulder_pan.range_min: joint shoulder_pan's min");
    expect(r.issues).toContain("arm.calibration.json: axes.shoulder_pan.range_max: joint shoulder_pan's max");
  });

  it("a file for another protocol, an unfinished one, a servo moved to another id, and an axis the arm lacks are each named", () => {
    const f = complete();
    f.protocol = "dynamixel_2";
    f.axes.wrist_flex = { kind: "joint", id: 4, counts_per_rev: 4096, center: 2048, range_min: 100, range_max: 4000 };
    f.axes.wrist_roll = { kind: "joint", id: 9, counts_per_rev: 4096, center: 2048, sign: 1, range_min: 100, range_max: 4000 };
    f.axes.elbow_roll = { kind: "joint", id: 7, counts_per_rev: 4096 };
    const r = loadWith(f);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toContain("it was taken on a dynamixel_2 bus, the config's is feetech_sts");
    expect(r.issues).toContain("wrist_flex: direction");
    expect(r.issues).toContain("wrist_roll is servo 9 in the file but 5 in the config");
    expect(r.issues).toContain("it names elbow_roll, which the config does not have");
  });

  it("two axes on one servo id are refused by the file's own schema", () => {
    const f = complete();
    f.axes.shoulder_lift = { kind: "joint", id: 1, counts_per_rev: 4096, center: 2048, sign: 1, range_min: 100, range_max: 4000 };
    const r = loadWith(f);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toContain("servo id 1 is also shoulder_pan's");
  });
});
