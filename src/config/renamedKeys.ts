import { createLogger } from "../observability/logger.js";

/**
 * Keys that were renamed (every duration is `_ms`, apart from keys that
 * mirror an outside ROS or MoveIt parameter). A file written with an old key
 * keeps loading: the value is moved to the new key, converted, and a warning
 * names the new key. Giving both is refused: which one was meant is unclear.
 */
export interface RenamedKey {
  /** The section holding the key (`[]` for the top level). */
  readonly section: readonly string[];
  readonly old: string;
  readonly renamed: string;
  readonly convert: (old: unknown) => unknown;
}

const secondsToMs = (value: unknown): unknown => (typeof value === "number" ? value * 1000 : value);

export const RENAMED_KEYS: readonly RenamedKey[] = [
  { section: [], old: "approval_timeout_s", renamed: "approval_timeout_ms", convert: secondsToMs },
  { section: ["moveit"], old: "solve_timeout_s", renamed: "solve_timeout_ms", convert: secondsToMs },
  { section: ["ros2"], old: "min_motion_s", renamed: "min_motion_ms", convert: secondsToMs },
];

export interface RenamedKeyWarning {
  readonly key: string;
  readonly use: string;
  readonly message: string;
}

/** A value moved from an old key: its path under the new name, and how to say where it came from. */
export interface MovedKey {
  readonly path: readonly string[];
  readonly origin: string;
}

export interface RenamedKeysResult {
  readonly raw: unknown;
  readonly moved: MovedKey[];
  readonly warnings: RenamedKeyWarning[];
  readonly issues: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The raw config with every old key moved to its new name; the raw object itself is not changed. */
export function applyRenamedKeys(raw: unknown): RenamedKeysResult {
  const warnings: RenamedKeyWarning[] = [];
  const issues: string[] = [];
  const moved: MovedKey[] = [];
  if (!isRecord(raw)) return { raw, warnings, issues, moved };
  const copy: Record<string, unknown> = { ...raw };
  for (const rename of RENAMED_KEYS) {
    const parent = sectionCopy(copy, rename.section);
    if (parent === undefined || !(rename.old in parent)) continue;
    const where = [...rename.section, ""].join(".");
    const key = `${where}${rename.old}`;
    const use = `${where}${rename.renamed}`;
    if (rename.renamed in parent) {
      issues.push(`${key}: give ${use} only (${key} is its old name, in seconds)`);
      continue;
    }
    parent[rename.renamed] = rename.convert(parent[rename.old]);
    delete parent[rename.old];
    moved.push({
      path: [...rename.section, rename.renamed],
      origin: `${key} (${String(parent[rename.renamed])} ms once read as ${use}, from ${shownOld(raw, rename)} s)`,
    });
    warnings.push({ key, use, message: `${key} is deprecated: use ${use} (milliseconds)` });
  }
  return { raw: copy, warnings, issues, moved };
}

/** The old key's value as the file gave it. */
function shownOld(raw: Record<string, unknown>, rename: RenamedKey): string {
  let at: unknown = raw;
  for (const key of rename.section) at = isRecord(at) ? at[key] : undefined;
  return isRecord(at) ? String(at[rename.old]) : "?";
}

/** The object at `path` under `root`, copied in place so editing it leaves the caller's object alone. */
function sectionCopy(root: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let at = root;
  for (const key of path) {
    const next = at[key];
    if (!isRecord(next)) return undefined;
    const copy = { ...next };
    at[key] = copy;
    at = copy;
  }
  return at;
}

/** The default way a renamed key's warning reaches the user: one log line per key at load. */
export function logRenamedKeys(source: string, warnings: readonly RenamedKeyWarning[]): void {
  if (warnings.length === 0) return;
  const log = createLogger({ name: "config" }).child({ component: "config" });
  for (const w of warnings) log.warn({ config: source, key: w.key, use: w.use }, w.message);
}
