import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { isArmbridgeError } from "../../src/errors.js";
import { servoAxesOf } from "../../src/protocol/bus/servoAxes.js";

const SO101 = join(packageRoot(), "config", "so101.yaml");
type Motor = { id: number; drive_mode: number; homing_offset: number; range_min: number; range_max: number };

/** A LeRobot calibration of the SO-101 that fits the shipped config: ids 1–6, each joint's travel inside its range. */
function goodCalibration(): Record<string, Motor> {
  const m = (id: number, range_min = 100, range_max = 4000): Motor => ({ id, drive_mode: 0, homing_offset: 0, range_min, range_max });
  return { shoulder_pan: m(1), shoulder_lift: m(2), elbow_flex: m(3), wrist_flex: m(4), wrist_roll: m(5), gripper: m(6, 2000, 3000) };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armbridge-merged-config-"));
  // A copy of config/so101.yaml beside its URDF, as a user would keep it, with `calibration: cal.json`.
  mkdirSync(join(dir, "urdf"));
  copyFileSync(join(packageRoot(), "config", "urdf", "so101.urdf"), join(dir, "urdf", "so101.urdf"));
  const raw = parse(readFileSync(SO101, "utf8")) as { bus: Record<string, unknown> };
  raw.bus.calibration = "cal.json";
  writeFileSync(join(dir, "so101.yaml"), stringify(raw));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Loads the copy with this calibration; the config error (code and issues), or "loaded". */
function loadWith(calibration: unknown): { code: string; issues: string; path: string } {
  writeFileSync(join(dir, "cal.json"), JSON.stringify(calibration));
  try {
    loadConfig(join(dir, "so101.yaml"));
    return { code: "loaded", issues: "", path: "" };
  } catch (error) {
    if (!isArmbridgeError(error)) throw error;
    return { code: error.code, issues: String(error.details.issues), path: String(error.details.path) };
  }
}

describe("a calibration file goes through the same checks as the YAML, after it is merged; errors name the file and key", () => {
  it("a calibration that fits the config loads: ids, centre, sign and range from the file", () => {
    const cal = goodCalibration();
    cal.elbow_flex = { ...cal.elbow_flex!, drive_mode: 1, range_min: 1000, range_max: 3600 };
    writeFileSync(join(dir, "cal.json"), JSON.stringify(cal));
    const config = loadConfig(join(dir, "so101.yaml"));
    expect(config.arm.joints.find((j) => j.name === "elbow_flex")!.servo).toMatchObject({ id: 3, center: 2300, sign: -1, rangeMin: 1000, rangeMax: 3600 });
    expect(config.arm.gripper!.servo).toMatchObject({ id: 6, closed: 2000, open: 3000 });
  });

  it("shoulder_pan and shoulder_lift both id 1 (the issue's case): refused, naming both joints and the file (it used to start and move the wrong joint)", () => {
    const cal = goodCalibration();
    cal.shoulder_lift!.id = 1;
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toContain("cal.json: shoulder_lift.id: servo id 1 is used by both shoulder_pan and shoulder_lift");
  });

  it("the issue's exact file (both id 1, every range 1000..3096) is refused for the duplicate, and for travel the servos' limits would clamp", () => {
    const cal = Object.fromEntries(Object.entries(goodCalibration()).map(([k, m]) => [k, { ...m, range_min: 1000, range_max: 3096 }]));
    cal.shoulder_lift!.id = 1;
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toContain("servo id 1 is used by both shoulder_pan and shoulder_lift");
    expect(r.issues).toMatch(/cal\.json: shoulder_lift\.range_min: joint shoulder_lift's min -1\.7 rad is servo count 940, outside the servo's range 1000\.\.3096/);
  });

  it("servo id 300: outside the protocol's ids (Feetech 0–253), naming the file and key", () => {
    const cal = goodCalibration();
    cal.wrist_roll!.id = 300;
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toMatch(/cal\.json: wrist_roll\.id: servo id 300 of wrist_roll is outside feetech_sts's ids 0–253/);
  });

  it("a gripper with range_min == range_max: refused (its position used to read null and set_gripper 'would take Infinity s')", () => {
    const cal = goodCalibration();
    cal.gripper = { ...cal.gripper!, range_min: 2048, range_max: 2048 };
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toMatch(/cal\.json: gripper\.range_max: closed and open are both count 2048/);
  });

  it.each([
    ["a joint's range_min above its range_max", (c: Record<string, Motor>) => (c.elbow_flex = { ...c.elbow_flex!, range_min: 3000, range_max: 1000 }), /cal\.json: elbow_flex\.range_max: range_min 3000 must be below range_max 1000/],
    ["a range beyond the servo's resolution (one turn is 0..4095)", (c: Record<string, Motor>) => (c.elbow_flex = { ...c.elbow_flex!, range_max: 5000 }), /cal\.json: elbow_flex\.range_max: range_max 5000 is beyond one turn/],
    ["a gripper count beyond one turn", (c: Record<string, Motor>) => (c.gripper = { ...c.gripper!, range_max: 4096 }), /cal\.json: gripper\.range_max: open 4096 is outside one turn/],
    ["a motor no joint has (another arm's file)", (c: Record<string, Motor>) => (c.elbow_roll = { id: 9, drive_mode: 0, homing_offset: 0, range_min: 0, range_max: 4095 }), /cal\.json: elbow_roll: matches no joint or gripper/],
    ["a joint the file does not calibrate", (c: Record<string, Motor>) => delete c.wrist_flex, /cal\.json: has no motor for joint wrist_flex \(looked up by name, then by its servo id 4\)/],
  ])("%s", (_what, edit, reason) => {
    const cal = goodCalibration();
    edit(cal);
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.issues).toMatch(reason);
  });

  it.each([
    ["an id that is not an integer", { shoulder_pan: { id: "one", range_min: 0, range_max: 4095 } }, /cal\.json: shoulder_pan\.id/],
    ["a drive_mode other than 0 or 1", { shoulder_pan: { id: 1, drive_mode: 2, range_min: 0, range_max: 4095 } }, /cal\.json: shoulder_pan\.drive_mode/],
    ["a motor without its range", { shoulder_pan: { id: 1 } }, /cal\.json: shoulder_pan\.range_min/],
    ["not an object of motors", [1, 2, 3], /cal\.json: a LeRobot calibration is an object of motors/],
  ])("a file of the wrong shape (%s) is a coded error naming the file and key", (_what, cal, reason) => {
    const r = loadWith(cal);
    expect(r.code).toBe("ARMB_ERR_CONFIG_INVALID");
    expect(r.path).toBe(join(dir, "cal.json"));
    expect(r.issues).toMatch(reason);
  });

  it("a file that is not JSON is a read error naming it", () => {
    writeFileSync(join(dir, "cal.json"), "{ not json");
    expect(() => loadConfig(join(dir, "so101.yaml"))).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_READ", details: expect.objectContaining({ path: join(dir, "cal.json") }) }));
  });
});

describe("the YAML's own servo values are held to the protocol too", () => {
  const joint = (name: string, servo: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, min: -1, max: 1, max_velocity: 1, max_acceleration: 1, servo, ...extra });
  const issuesOf = (raw: unknown): string => {
    try {
      parseConfig(raw);
    } catch (error) {
      if (isArmbridgeError(error, "ARMB_ERR_CONFIG_INVALID")) return String(error.details.issues);
      throw error;
    }
    return "accepted";
  };

  it("id 253: a Feetech id, but not a Dynamixel 2.0 one (253 would repeat the packet header)", () => {
    expect(issuesOf({ bus: { protocol: "feetech_sts" }, arm: { joints: [joint("a", { id: 253 })] } })).toBe("accepted");
    expect(issuesOf({ bus: { protocol: "dynamixel_2" }, arm: { joints: [joint("a", { id: 253 })] } })).toMatch(/arm\.joints\[0\]\.servo\.id: servo id 253 of a is outside dynamixel_2's ids 0–252/);
  });

  it("a joint id shared with the gripper is refused, naming both", () => {
    expect(issuesOf({ bus: { protocol: "feetech_sts" }, arm: { joints: [joint("a", { id: 1 })], gripper: { servo: { id: 1, closed: 1000, open: 2000 } } } })).toMatch(
      /arm\.gripper\.servo\.id: servo id 1 is used by both a and gripper/,
    );
  });

  it("a joint whose travel leaves one turn of the servo (or its range) is refused", () => {
    expect(issuesOf({ bus: { protocol: "feetech_sts" }, arm: { joints: [joint("a", { id: 1 }, { min: -3.5, max: 1 })] } })).toMatch(/arm\.joints\[0\]\.min: joint a's min -3\.5 rad is servo count -234/);
    expect(issuesOf({ bus: { protocol: "feetech_sts" }, arm: { joints: [joint("a", { id: 1, range_min: 1500, range_max: 2600 })] } })).toMatch(/arm\.joints\[0\]\.servo\.range_min: joint a's min -1 rad/);
    expect(issuesOf({ bus: { protocol: "feetech_sts" }, arm: { joints: [joint("a", { id: 1, range_min: 1500 })] } })).toMatch(/give both range_min and range_max/);
  });

  it("a gripper whose closed and open counts are equal is refused", () => {
    expect(issuesOf({ bus: { protocol: "dynamixel_2" }, arm: { joints: [joint("a", { id: 1 })], gripper: { servo: { id: 2, closed: 1000, open: 1000 } } } })).toMatch(/arm\.gripper\.servo\.open: closed and open are both count 1000/);
  });
});

describe("relative paths in a config resolve against the config's folder, for every key", () => {
  it("a `file:` camera, like arm.urdf and bus.calibration, is found beside the config wherever the bridge starts (it used to resolve against the working folder)", () => {
    writeFileSync(join(dir, "cal.json"), JSON.stringify(goodCalibration()));
    const raw = parse(readFileSync(join(dir, "so101.yaml"), "utf8")) as Record<string, unknown>;
    raw.cameras = [{ name: "top", source: { file: "frames/top.jpg" } }, { name: "side", source: { file: "/var/frames/side.jpg" } }];
    writeFileSync(join(dir, "so101.yaml"), stringify(raw));
    const config = loadConfig(join(dir, "so101.yaml"));
    expect(config.cameras[0]!.source).toEqual({ kind: "file", path: join(dir, "frames", "top.jpg") });
    expect(config.cameras[1]!.source).toEqual({ kind: "file", path: "/var/frames/side.jpg" });
    expect(config.arm.urdf).toBe(join(dir, "urdf", "so101.urdf"));
    expect(config.bus!.calibration).toBe(join(dir, "cal.json"));
  });
});

describe("the servo bus refuses a config built in code that parseConfig would have refused", () => {
  it("two axes on one id, or a gripper with no travel: ARMB_ERR_CONFIG_INVALID from servoAxesOf, before any bus is opened", () => {
    const config = loadConfig(SO101);
    const [a, b] = config.arm.joints;
    const dup = { ...config, arm: { ...config.arm, joints: [a!, { ...b!, servo: { ...b!.servo!, id: a!.servo!.id } }, ...config.arm.joints.slice(2)] } };
    expect(() => servoAxesOf(dup)).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID", message: expect.stringContaining(`used by both ${a!.name} and ${b!.name}`) }));
    const g = config.arm.gripper!;
    const still = { ...config, arm: { ...config.arm, gripper: { ...g, servo: { ...g.servo!, open: g.servo!.closed } } } };
    expect(() => servoAxesOf(still)).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }));
  });
});
