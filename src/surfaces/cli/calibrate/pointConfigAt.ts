import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { packageRoot } from "../../../config/packageRoot.js";
import { cliUsageError } from "../cliUsageError.js";
import { setYamlKey } from "../yamlEdit.js";

/** Where `armbridge calibrate` writes for a config that names no calibration yet: beside it, named after it. */
export function defaultCalibrationPath(configPath: string): string {
  const name = basename(configPath).replace(/\.(ya?ml|json)$/i, "");
  return join(dirname(resolve(configPath)), `${name}.calibration.json`);
}

/** Refuses to write into the configs shipped with armbridge: they are templates, and an upgrade would overwrite them. */
export function refuseShippedConfig(configPath: string): void {
  const shipped = join(packageRoot(), "config") + sep;
  if (resolve(configPath).startsWith(shipped)) {
    throw cliUsageError(`${configPath} is a config shipped with armbridge; copy it first (cp ${configPath} my-arm.yaml) and calibrate the copy`);
  }
}

/**
 * Sets `bus.calibration` in the config file to `calibrationPath` (relative
 * to the config's folder), changing nothing else in the file, so the next
 * `serve` finds the calibration.
 */
export function pointConfigAt(configPath: string, calibrationPath: string): string {
  const rel = relative(dirname(resolve(configPath)), resolve(calibrationPath)) || basename(calibrationPath);
  const text = readFileSync(configPath, "utf8");
  if (configPath.endsWith(".json")) {
    const raw = JSON.parse(text) as { bus?: Record<string, unknown> };
    raw.bus = { ...(raw.bus ?? {}), calibration: rel };
    writeFileSync(configPath, JSON.stringify(raw, null, 2) + "\n");
    return rel;
  }
  writeFileSync(configPath, setYamlKey(text, ["bus"], "calibration", () => ` ${/^[\w./-]+$/.test(rel) ? rel : JSON.stringify(rel)}`, configPath));
  return rel;
}
