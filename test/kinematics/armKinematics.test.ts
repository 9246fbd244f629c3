import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG_PATH, loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { parse as parseYaml, stringify } from "yaml";
import { reportEnvelope } from "../../src/safety/reportEnvelope.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armbridge-kin-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const defaultRaw = (): Record<string, Record<string, unknown>> =>
  parseYaml(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
const simUrdf = readFileSync(join(DEFAULT_CONFIG_PATH, "..", "urdf", "sim-arm.urdf"), "utf8");

/** Writes a config (and the sim URDF beside it under `urdfName`) and loads it. */
function writeAndLoad(
  patch: (raw: Record<string, Record<string, unknown>>) => void,
  urdfName = "robot/arm.urdf",
): ReturnType<typeof loadConfig> {
  const raw = defaultRaw();
  raw.arm!.urdf = urdfName;
  patch(raw);
  const urdfPath = join(dir, urdfName);
  rmSync(join(dir, "robot"), { recursive: true, force: true });
  if (!urdfName.startsWith("/")) {
    mkdirSync(join(urdfPath, ".."), { recursive: true });
    writeFileSync(urdfPath, simUrdf);
  }
  const cfg = join(dir, "arm.yaml");
  writeFileSync(cfg, stringify(raw));
  return loadConfig(cfg);
}

describe("arm.urdf, arm.base_link, arm.tip_link and workspace in the config", () => {
  it("arm.urdf is relative to the config file, not to where the bridge runs", () => {
    const config = writeAndLoad(() => undefined);
    expect(config.arm.urdf).toBe(join(dir, "robot", "arm.urdf"));
    expect(armKinematicsOf(config)?.jointNames).toEqual([
      "shoulder_pan",
      "shoulder_lift",
      "elbow",
      "wrist_1",
      "wrist_2",
      "wrist_3",
    ]);
  });

  it("the shipped default config has kinematics and an envelope", () => {
    const config = loadConfig();
    expect(armKinematicsOf(config)?.chain.tipLink).toBe("tool0");
    expect(config.workspace).toMatchObject({
      frame: "base_link",
      floorZ: -0.39,
      keepIn: { min: [-0.95, -0.95, -0.4], max: [0.95, 0.95, 1.2] },
    });
  });

  it.each([
    [
      "arm.urdf without arm.tip_link",
      (raw: Record<string, Record<string, unknown>>) => delete raw.arm!.tip_link,
      /arm.urdf needs arm.tip_link/,
    ],
    [
      "a workspace without kinematics",
      (raw: Record<string, Record<string, unknown>>) => {
        delete raw.arm!.urdf;
        delete raw.arm!.base_link;
        delete raw.arm!.tip_link;
      },
      /an envelope needs the arm's kinematics/,
    ],
    [
      "keep_in.min above keep_in.max",
      (raw: Record<string, Record<string, unknown>>) => (raw.workspace!.keep_in = { min: [0, 0, 0], max: [1, -1, 1] }),
      /keep_in.min must be below/,
    ],
    [
      "a misspelt workspace key",
      (raw: Record<string, Record<string, unknown>>) => (raw.workspace!.keepin = 1),
      /keepin/,
    ],
  ])("refuses %s (ARMB_ERR_CONFIG_INVALID)", (_what, patch, reason) => {
    const raw = defaultRaw();
    raw.arm!.urdf = "/nonexistent.urdf";
    patch(raw);
    let caught: unknown;
    try {
      parseConfig(raw, "bad.yaml");
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "ARMB_ERR_CONFIG_INVALID" });
    expect((caught as Error).message).toMatch(reason);
  });

  it("a chain joint the config does not name is ARMB_ERR_URDF_MISMATCH; so is a workspace frame that moves", () => {
    const renamed = writeAndLoad((raw) => {
      (raw.arm!.joints as { name: string }[])[2]!.name = "elbow_joint";
      raw.arm!.named_poses = {};
    });
    expect(() => armKinematicsOf(renamed)).toThrow(expect.objectContaining({ code: "ARMB_ERR_URDF_MISMATCH" }));
    const moving = writeAndLoad((raw) => (raw.workspace!.frame = "tool0"));
    expect(() => armKinematicsOf(moving)).toThrow(expect.objectContaining({ code: "ARMB_ERR_URDF_MISMATCH" }));
  });

  it("a URDF that cannot be read is ARMB_ERR_URDF_INVALID, raised when the kinematics are first needed (the bridge does so at start)", () => {
    const config = writeAndLoad(() => undefined, "/definitely/not/here.urdf");
    expect(() => armKinematicsOf(config)).toThrow(expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }));
  });

  it.each([
    [
      "a named pose outside the URDF's limits (stow's elbow 2.4, the URDF stops at 2.0)",
      'upper="2.0"',
      /arm\.named_poses\.stow\.elbow 2\.4 is outside its travel \[-2\.6, 2\]/,
    ],
    [
      "limits that meet the config's in a single point (no travel left)",
      'lower="2.6" upper="3.0"',
      /joint elbow: its URDF limits and the config's \[-2\.6, 2\.6\] leave no travel/,
    ],
  ])(
    "the URDF's limits go through the config's cross-checks too: %s is ARMB_ERR_URDF_MISMATCH naming the key (it used to load)",
    (_what, limit, reason) => {
      const urdf = join(dir, "narrow.urdf");
      writeFileSync(
        urdf,
        simUrdf.replace(
          '<limit lower="-2.6" upper="2.6"',
          `<limit ${limit.includes("lower") ? limit : `lower="-2.6" ${limit}`}`,
        ),
      );
      const raw = defaultRaw();
      raw.arm!.urdf = urdf;
      const config = parseConfig(raw, "narrow test");
      let caught: unknown;
      try {
        armKinematicsOf(config);
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: "ARMB_ERR_URDF_MISMATCH" });
      expect((caught as Error).message).toContain(urdf);
      expect((caught as Error).message).toMatch(reason);
    },
  );

  it("the config's joint limits narrow the URDF's: IK never proposes what move_joints would refuse", () => {
    const config = writeAndLoad((raw) => ((raw.arm!.joints as { max: number }[])[2]!.max = 2.5));
    expect(armKinematicsOf(config)!.chain.variables[2]).toMatchObject({ lower: -2.6, upper: 2.5 });
  });
});

describe("the start-up report", () => {
  function capture(): { logger: pino.Logger; lines: { level: number; msg: string }[] } {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino(
      { level: "info" },
      { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) },
    );
    return { logger, lines };
  }

  it("says loudly (warn) when no envelope is configured, and quietly (info) when one is", () => {
    const none = capture();
    // No keep_in, floor or keep-out zone (the allowed contacts stay, so self-collision is still checked).
    const shipped = loadConfig();
    const noWorkspace = {
      ...shipped,
      workspace: { ...shipped.workspace!, keepIn: undefined, floorZ: undefined, maxStepM: undefined },
    };
    expect(reportEnvelope(noWorkspace, none.logger)).toBe("no_envelope");
    expect(none.lines).toEqual([
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/^NO SAFETY ENVELOPE/) as unknown }),
    ]);

    const noKin = capture();
    const bare = { ...loadConfig(), arm: { ...loadConfig().arm, urdf: undefined }, workspace: undefined };
    expect(reportEnvelope(bare, noKin.logger)).toBe("no_kinematics");
    expect(noKin.lines[0]).toMatchObject({ level: 40 });

    const ok = capture();
    expect(reportEnvelope(loadConfig(), ok.logger)).toBe("checked");
    expect(ok.lines[0]).toMatchObject({ level: 30 });
  });
});
