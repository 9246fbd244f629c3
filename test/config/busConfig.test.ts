import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { countOf, positionOf, servoAxesOf } from "../../src/protocol/bus/servoAxes.js";

const joint = (name: string, id: number): Record<string, unknown> => ({ name, min: -2, max: 2, max_velocity: 2, max_acceleration: 8, servo: { id } });

describe("bus config contract", () => {
  it.each(["so101.yaml", "koch-follower.yaml"])("ships %s, valid, with a servo per axis", (file) => {
    const config = loadConfig(join(packageRoot(), "config", file));
    expect(config.bus).toBeDefined();
    expect(servoAxesOf(config)).toHaveLength(config.arm.joints.length + 1);
  });

  it("maps counts to radians as (count − center) × 2π / counts_per_rev × sign", () => {
    const config = parseConfig({ bus: { protocol: "feetech_sts" }, arm: { joints: [{ ...joint("a", 1), servo: { id: 1, counts_per_rev: 4096, center: 2000, sign: -1 } }] } });
    const [axis] = servoAxesOf(config);
    expect(positionOf(axis!, 2000 + 1024)).toBeCloseTo(-Math.PI / 2, 12);
    expect(countOf(axis!, -Math.PI / 2)).toBeCloseTo(3024, 9);
  });

  it("refuses a bus config with a joint lacking a servo, or two axes on one id, naming the path", () => {
    expect(() => parseConfig({ bus: { protocol: "dynamixel_2" }, arm: { joints: [{ name: "a", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] } })).toThrow(/arm\.joints\W+0\W+servo/);
    expect(() => parseConfig({ bus: { protocol: "dynamixel_2" }, arm: { joints: [joint("a", 1), joint("b", 1)] } })).toThrow(/servo id 1 is used by both a and b/);
    expect(() => parseConfig({ bus: { protocol: "can_open" }, arm: { joints: [joint("a", 1)] } })).toThrow(/bus\W+protocol/);
  });

  it("takes centre and sign from a LeRobot calibration file (by motor name, else by id)", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-calib-"));
    try {
      writeFileSync(
        join(dir, "calib.json"),
        JSON.stringify({
          a: { id: 1, drive_mode: 0, homing_offset: -1000, range_min: 1000, range_max: 3000 },
          motor_b: { id: 2, drive_mode: 1, homing_offset: 12, range_min: 500, range_max: 1500 },
          gripper: { id: 3, drive_mode: 0, homing_offset: 0, range_min: 1900, range_max: 2800 },
        }),
      );
      const path = join(dir, "arm.yaml");
      // ±0.5 rad is ±326 counts: inside both motors' ranges, as the merged config's checks require.
      const narrow = (name: string, id: number): Record<string, unknown> => ({ ...joint(name, id), min: -0.5, max: 0.5 });
      writeFileSync(path, stringify({ bus: { protocol: "feetech_sts", calibration: "calib.json" }, arm: { joints: [narrow("a", 1), narrow("b", 2)], gripper: { servo: { id: 3, closed: 0, open: 1 } } } }));
      const config = loadConfig(path);
      expect(config.arm.joints[0]!.servo).toMatchObject({ id: 1, center: 2000, sign: 1 });
      expect(config.arm.joints[1]!.servo).toMatchObject({ id: 2, center: 1000, sign: -1 });
      expect(config.arm.gripper!.servo).toMatchObject({ closed: 1900, open: 2800 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
