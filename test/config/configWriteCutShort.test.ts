import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type * as Fs from "node:fs";

/**
 * A crash (or a full disk) part-way through writing a config: the write is
 * made to stop after half its bytes. Whatever armbridge writes into a file
 * the person keeps, the file must afterwards hold either its old bytes or its
 * new ones, never half of each.
 */
const cut = vi.hoisted(() => ({ armed: false }));
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof Fs>();
  const writeFileSync: typeof fs.writeFileSync = (file, data, options) => {
    if (!cut.armed) return fs.writeFileSync(file, data, options);
    const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data as Uint8Array);
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)), options);
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  };
  return { ...fs, default: { ...fs, writeFileSync }, writeFileSync };
});

const { packageRoot } = await import("../../src/config/packageRoot.js");
const { loadConfig } = await import("../../src/config/loadConfig.js");
const { writeTableCalibration } = await import("../../src/surfaces/cli/camera/writeTableCalibration.js");
const { pointConfigAt } = await import("../../src/surfaces/cli/calibrate/pointConfigAt.js");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armb-cut-"));
  copyFileSync(join(packageRoot(), "config", "sim-arm.yaml"), join(dir, "arm.yaml"));
  copyFileSync(join(packageRoot(), "config", "so101.yaml"), join(dir, "so101.yaml"));
});
afterEach(() => {
  cut.armed = false;
  rmSync(dir, { recursive: true, force: true });
});

const corners: [number, number][] = [[100, 100], [500, 100], [500, 400], [100, 400]];
const TABLE = { z: 0, points: corners.map((image, i) => ({ image, table: [0.1 * i, 0.2 + 0.1 * (i % 2)] as [number, number] })) };

describe("a config write cut short", () => {
  it.each([
    ["camera calibrate --write", "arm.yaml", (path: string) => writeTableCalibration(path, "overhead", TABLE)],
    ["calibrate pointing bus.calibration at its file", "so101.yaml", (path: string) => pointConfigAt(path, join(dir, "so101.calibration.json"))],
  ])("%s leaves the old bytes and no stray file", (_what, file, write) => {
    const path = join(dir, file);
    const before = readFileSync(path, "utf8");
    cut.armed = true;
    expect(() => write(path)).toThrow(/ENOSPC/);
    cut.armed = false;
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(["arm.yaml", "so101.yaml"]);
    if (file === "arm.yaml") expect(() => loadConfig(path)).not.toThrow();
  });
});
