import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { ArmbridgeError } from "../errors.js";
import { formatIssues } from "../validation/formatIssues.js";
import { armConfigFileSchema, type ArmConfig } from "./ArmConfig.js";
import { applyBusCalibration } from "./busCalibration.js";
import { packageRoot } from "./packageRoot.js";

/** The simulated arm shipped with armbridge: 6 joints and a gripper. */
export const DEFAULT_CONFIG_PATH = join(packageRoot(), "config", "sim-arm.yaml");

/** Validates an already-parsed config object; `source` names it in errors. */
export function parseConfig(raw: unknown, source = "<inline>"): ArmConfig {
  const parsed = armConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: source, issues: formatIssues(parsed.error.issues) });
  }
  return parsed.data;
}

export interface LoadConfigOptions {
  /**
   * Changes the file's contents before they are validated (a bench that sets
   * a timeout or a baud rate). Paths in the file still resolve against the
   * file's folder, as they do for any config loaded from disk.
   */
  readonly edit?: (raw: Record<string, unknown>) => Record<string, unknown>;
}

/** Reads a YAML or JSON arm config; with no path, the default simulated arm. */
export function loadConfig(path: string = DEFAULT_CONFIG_PATH, options: LoadConfigOptions = {}): ArmConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  let raw: unknown;
  try {
    raw = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: `not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}` }, { cause: error });
  }
  if (options.edit && raw !== null && typeof raw === "object" && !Array.isArray(raw)) raw = options.edit(raw as Record<string, unknown>);
  return applyBusCalibration(parseConfig(resolveUrdfPath(raw, path), path), path);
}

/** `arm.urdf` is relative to the config file that names it, wherever the bridge was started from. */
function resolveUrdfPath(raw: unknown, configPath: string): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const arm = (raw as Record<string, unknown>).arm;
  if (!arm || typeof arm !== "object") return raw;
  const urdf = (arm as Record<string, unknown>).urdf;
  if (typeof urdf !== "string" || isAbsolute(urdf)) return raw;
  return { ...raw, arm: { ...arm, urdf: resolve(dirname(configPath), urdf) } };
}
