import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { isArmbridgeError } from "../../src/errors.js";
import { refuseShippedConfig } from "../../src/surfaces/cli/calibrate/pointConfigAt.js";
import { writeTableCalibration } from "../../src/surfaces/cli/camera/writeTableCalibration.js";
import { CLI, runCli, within } from "../surfaces/cli/processes.js";

const SIM_ARM = join(packageRoot(), "config", "sim-arm.yaml");
const built = existsSync(CLI);
if (!built) console.warn(`skipping the CLI cases of the config-file tests: ${CLI} is missing; run \`npm run build\` first`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armb-files-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function codeOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    return { code: isArmbridgeError(error) ? error.code : "not coded", message: (error as Error).message };
  }
  throw new Error("expected it to throw");
}

/** A copy of the simulated arm's config and its URDF in a folder of the test's own. */
function copyOfSimArm(): string {
  mkdirSync(join(dir, "urdf"));
  copyFileSync(join(packageRoot(), "config", "urdf", "sim-arm.urdf"), join(dir, "urdf", "sim-arm.urdf"));
  const path = join(dir, "arm.yaml");
  copyFileSync(SIM_ARM, path);
  return path;
}

describe("files that are not regular files are refused before a byte is read", () => {
  it.skipIf(!built)("a FIFO given as the config ends the command with a coded error instead of waiting for a writer", async () => {
    const fifo = join(dir, "arm.yaml");
    execFileSync("mkfifo", [fifo]);
    const r = await within(runCli(["tools", "--config", fifo]), 15_000);
    expect(r).not.toBe("hung");
    if (r === "hung") return;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("ARMB_ERR_CONFIG_READ");
    expect(r.stderr).toContain("FIFO");
  });

  it.skipIf(!built)("a FIFO named by bus.calibration is refused the same way", async () => {
    const fifo = join(dir, "cal.json");
    execFileSync("mkfifo", [fifo]);
    const config = join(dir, "arm.yaml");
    writeFileSync(config, readFileSync(join(packageRoot(), "config", "so101.yaml"), "utf8").replace("# calibration: so101_follower.json", `calibration: ${fifo}`).replace("urdf: urdf/so101.urdf", `urdf: ${join(packageRoot(), "config", "urdf", "so101.urdf")}`));
    const r = await within(runCli(["tools", "--config", config]), 15_000);
    expect(r).not.toBe("hung");
    if (r === "hung") return;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("FIFO");
  });

  it("a FIFO as arm.urdf is refused naming the URDF", () => {
    const config = copyOfSimArm();
    rmSync(join(dir, "urdf", "sim-arm.urdf"));
    execFileSync("mkfifo", [join(dir, "urdf", "sim-arm.urdf")]);
    // Loading the URDF happens where the kinematics are built; the same reader refuses it there.
    const doctor = runCli(["doctor", "--config", config]);
    return within(doctor, 20_000).then((r) => {
      expect(r).not.toBe("hung");
      if (r === "hung") return;
      expect(r.stdout + r.stderr).toContain("FIFO");
    });
  });

  it("a folder as the config is named as one", () => {
    const e = codeOf(() => loadConfig(dir));
    expect(e.code).toBe("ARMB_ERR_CONFIG_READ");
    expect(e.message).toContain("directory");
  });
});

describe("what a config or calibration says is never copied into an error", () => {
  it("a bus.calibration pointing at a file that is not JSON is refused without quoting it", () => {
    const secret = join(dir, "passwd");
    writeFileSync(secret, "root:x:0:0:root:/root:/bin/bash\nsecret-hash-here\n");
    const config = join(dir, "arm.yaml");
    writeFileSync(config, readFileSync(join(packageRoot(), "config", "so101.yaml"), "utf8").replace("# calibration: so101_follower.json", `calibration: ${secret}`).replace("urdf: urdf/so101.urdf", `urdf: ${join(packageRoot(), "config", "urdf", "so101.urdf")}`));
    const e = codeOf(() => loadConfig(config));
    expect(e.code).toBe("ARMB_ERR_CONFIG_READ");
    expect(e.message).toContain("not valid JSON");
    expect(e.message).not.toContain("root");
    expect(e.message).not.toContain("secret-hash");
  });
});

describe("the size of a file is bounded before it is parsed", () => {
  it("a config over the bound is refused as too large, not parsed", () => {
    const config = join(dir, "huge.yaml");
    writeFileSync(config, `arm:\n  name: "${"x".repeat(5 * 1024 * 1024)}"\n`);
    const e = codeOf(() => loadConfig(config));
    expect(e.code).toBe("ARMB_ERR_CONFIG_READ");
    expect(e.message).toMatch(/\d+ bytes; a config file is at most \d+ bytes/);
  });
});

describe("writing into a config", () => {
  const corners: [number, number][] = [[100, 100], [500, 100], [500, 400], [100, 400]];
  const TABLE = { z: 0, points: corners.map((image, i) => ({ image, table: [0.1 * i, 0.2 + 0.1 * (i % 2)] as [number, number] })) };

  it("refuses to replace a table that another camera uses through a YAML alias, writing nothing", () => {
    const config = join(dir, "cams.yaml");
    const text = readFileSync(SIM_ARM, "utf8").replace(/\ncameras:\n[\s\S]*?\n(?=#)/, `
cameras:
  - name: top
    source: { file: top.jpg }
    table: &shared
      z: 0
      points:
        - { image: [100, 100], table: [0.3, 0.4] }
        - { image: [500, 100], table: [0.5, 0.4] }
        - { image: [500, 400], table: [0.5, 0.1] }
        - { image: [100, 400], table: [0.3, 0.1] }
  - name: side
    source: { file: side.jpg }
    table: *shared
`);
    writeFileSync(config, text);
    const before = loadConfig(config);
    expect(before.cameras?.length).toBe(2);
    let thrown: unknown;
    try {
      writeTableCalibration(config, "top", TABLE);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toContain("*shared");
    expect(readFileSync(config, "utf8")).toBe(text);
    expect(() => loadConfig(config)).not.toThrow();
    // The camera that uses the alias gets a table of its own; the shared one stays for the other.
    writeTableCalibration(config, "side", TABLE);
    const after = loadConfig(config);
    expect(after.cameras?.find((c) => c.name === "side")?.table?.points[1]?.table[1]).toBeCloseTo(0.3);
    expect(after.cameras?.find((c) => c.name === "top")?.table?.points[0]?.table).toEqual([0.3, 0.4]);
  });

  it("a write goes through a new file renamed into place, so a reader never sees half of it", () => {
    const config = copyOfSimArm();
    const inodeBefore = Number(execFileSync("stat", ["-c", "%i", config]).toString());
    writeTableCalibration(config, "overhead", TABLE);
    const inodeAfter = Number(execFileSync("stat", ["-c", "%i", config]).toString());
    expect(inodeAfter).not.toBe(inodeBefore);
    expect(loadConfig(config).cameras?.[0]?.table?.points[1]?.image).toEqual([500, 100]);
  });

  it("keeps a symbolic link a link: the file it leads to is replaced", () => {
    const real = copyOfSimArm();
    const link = join(dir, "link.yaml");
    symlinkSync(real, link);
    writeTableCalibration(link, "overhead", TABLE);
    expect(execFileSync("stat", ["-c", "%F", link]).toString().trim()).toBe("symbolic link");
    expect(loadConfig(real).cameras?.[0]?.table?.z).toBe(0);
  });
});

describe("the shipped configs are templates", () => {
  it("a symbolic link to a shipped config is refused like the config itself", () => {
    const link = join(dir, "my-arm.yaml");
    symlinkSync(SIM_ARM, link);
    expect(() => refuseShippedConfig(link)).toThrow(/shipped with armbridge/);
  });

  it("a hard link to a shipped config is refused too", () => {
    const link = join(dir, "my-arm.yaml");
    try {
      linkSync(SIM_ARM, link);
    } catch {
      console.warn("hard link across file systems not possible here; the case is not checked");
      return;
    }
    expect(() => refuseShippedConfig(link)).toThrow(/shipped with armbridge/);
  });

  it("a copy is not refused", () => {
    const copy = join(dir, "my-arm.yaml");
    copyFileSync(SIM_ARM, copy);
    expect(() => refuseShippedConfig(copy)).not.toThrow();
  });
});
