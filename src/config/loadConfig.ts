import { dirname, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { ArmbridgeError } from "../errors.js";
import { armConfigFileSchema, type ArmConfig } from "./ArmConfig.js";
import { mergeBusCalibration, readBusCalibration } from "./busCalibration.js";
import { ConfigOrigins } from "./ConfigOrigins.js";
import { packageRoot } from "./packageRoot.js";
import { resolveConfigPaths } from "./resolveConfigPaths.js";
import { readBoundedText } from "./files/readBoundedFile.js";
import { applyRenamedKeys, logRenamedKeys, type RenamedKeyWarning } from "./renamedKeys.js";
import { boundIssueMessage } from "../validation/boundIssueMessage.js";

/** The simulated arm shipped with armbridge: 6 joints and a gripper. */
export const DEFAULT_CONFIG_PATH = join(packageRoot(), "config", "sim-arm.yaml");

export interface ParseConfigOptions {
  /** The folder relative file paths in the config resolve against (loadConfig: the config file's); default the working folder. */
  readonly baseDir?: string;
  /** Hears of every renamed key the config still uses (by its old name); default: a warning in the log. */
  readonly onRenamedKeys?: (warnings: readonly RenamedKeyWarning[]) => void;
}

/**
 * Validates an already-parsed config object; `source` names it in errors.
 * Every source the config names is merged in first (a bus calibration
 * file), and the merged whole goes through the schema and its cross-checks
 * once: what a calibration file sets is held to the same rules as what the
 * YAML sets, and each issue names the file and key it came from.
 */
export function parseConfig(raw: unknown, source = "<inline>", options: ParseConfigOptions = {}): ArmConfig {
  const baseDir = options.baseDir ?? process.cwd();
  const origins = new ConfigOrigins();
  const renamed = applyRenamedKeys(raw);
  // An issue with a value given under an old name is said under that name, the one the file holds.
  for (const m of renamed.moved) origins.set(m.path, m.origin);
  const issues: string[] = [...renamed.issues];
  let merged = resolveConfigPaths(renamed.raw, baseDir);
  const calibration = calibrationNamedBy(raw);
  if (calibration !== undefined && merged !== null && typeof merged === "object") {
    const read = readBusCalibration(resolve(baseDir, calibration), calibration);
    const m = mergeBusCalibration(merged as Record<string, unknown>, read, origins);
    merged = m.raw;
    issues.push(...m.issues);
  }
  const parsed = armConfigFileSchema.safeParse(merged, { error: (issue) => boundIssueMessage(issue) });
  if (!parsed.success) issues.push(...origins.describe(parsed.error.issues));
  if (issues.length > 0 || !parsed.success)
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: source, issues: issues.join("; ") });
  (options.onRenamedKeys ?? ((warnings) => logRenamedKeys(source, warnings)))(renamed.warnings);
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

/** Reads a YAML or JSON arm config; with no path, the default simulated arm. Relative paths in it resolve against its folder. */
export function loadConfig(path: string = DEFAULT_CONFIG_PATH, options: LoadConfigOptions = {}): ArmConfig {
  let text: string;
  try {
    text = readBoundedText(path, "config");
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
  return parseConfig(raw, path, { baseDir: dirname(resolve(path)) });
}

/** `bus.calibration` as the config wrote it (how errors name the file), if it names one. */
function calibrationNamedBy(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const bus = (raw as Record<string, unknown>).bus;
  if (bus === null || typeof bus !== "object") return undefined;
  const file = (bus as Record<string, unknown>).calibration;
  return typeof file === "string" && file !== "" ? file : undefined;
}
