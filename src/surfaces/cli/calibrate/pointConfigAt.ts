import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { packageRoot } from "../../../config/packageRoot.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { setYamlKey } from "../yamlEdit.js";
import { readBoundedText } from "../../../config/files/readBoundedFile.js";
import { writeFileAtomic } from "../../../config/files/writeFileAtomic.js";

/** Where `armbridge calibrate` writes for a config that names no calibration yet: beside it, named after it. */
export function defaultCalibrationPath(configPath: string): string {
  const name = basename(configPath).replace(/\.(ya?ml|json)$/i, "");
  return join(dirname(resolve(configPath)), `${name}.calibration.json`);
}

/**
 * Refuses to write into the configs shipped with armbridge: they are
 * templates, and an upgrade would overwrite them. The file is judged by what
 * it is, not how it is named: a symbolic link into the shipped folder, or a
 * hard link to a shipped file, is refused as the file itself would be.
 */
export function refuseShippedConfig(configPath: string): void {
  const shippedFolder = realOrResolved(join(packageRoot(), "config"));
  const real = realOrResolved(configPath);
  if (real.startsWith(shippedFolder + sep) || isHardLinkInto(shippedFolder, configPath)) {
    throw cliUsageError(
      `${configPath} is a config shipped with armbridge${real === resolve(configPath) ? "" : ` (it leads to ${real})`}; copy it first (cp ${real} my-arm.yaml) and calibrate the copy`,
    );
  }
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isHardLinkInto(folder: string, path: string): boolean {
  let file;
  try {
    file = statSync(path);
  } catch {
    return false;
  }
  if (!file.isFile() || file.nlink < 2) return false;
  return readdirSync(folder).some((name) => {
    try {
      const shipped = statSync(join(folder, name));
      return shipped.ino === file.ino && shipped.dev === file.dev;
    } catch {
      return false;
    }
  });
}

/**
 * Sets `bus.calibration` in the config file to `calibrationPath` (relative
 * to the config's folder), changing nothing else in the file, so the next
 * `serve` finds the calibration.
 */
export function pointConfigAt(configPath: string, calibrationPath: string): string {
  const rel = relative(dirname(resolve(configPath)), resolve(calibrationPath)) || basename(calibrationPath);
  const text = readBoundedText(configPath, "config");
  if (configPath.endsWith(".json")) {
    const raw = JSON.parse(text) as { bus?: Record<string, unknown> };
    raw.bus = { ...(raw.bus ?? {}), calibration: rel };
    writeFileAtomic(configPath, JSON.stringify(raw, null, 2) + "\n");
    return rel;
  }
  writeFileAtomic(
    configPath,
    setYamlKey(
      text,
      ["bus"],
      "calibration",
      () => ` ${/^[\w./-]+$/.test(rel) ? rel : JSON.stringify(rel)}`,
      configPath,
    ),
  );
  return rel;
}
