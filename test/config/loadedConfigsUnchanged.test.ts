import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEveryConfig } from "./loadedConfigs.js";

/**
 * The one value whose name in code changed with its key: MoveIt's solve
 * timeout, now `solve_timeout_ms` in the file and `solveTimeoutMs` in code,
 * the same duration.
 */
function withRenamedKeys(config: unknown): unknown {
  const moveit = (config as { moveit?: Record<string, unknown> }).moveit;
  if (moveit === undefined || !("solveTimeoutS" in moveit)) return config;
  const { solveTimeoutS, ...rest } = moveit;
  return { ...(config as object), moveit: { ...rest, solveTimeoutMs: (solveTimeoutS as number) * 1000 } };
}

/**
 * Every config that loaded before the schema was split by section loads to
 * the same values: the fixture is the loader's output before the split
 * (written with ARMBRIDGE_WRITE_CONFIG_FIXTURE=1), compared key by key.
 */
const FIXTURE = join(import.meta.dirname, "fixtures", "loadedConfigs.json");

describe("loaded configs", () => {
  const now = loadEveryConfig();
  if (process.env.ARMBRIDGE_WRITE_CONFIG_FIXTURE === "1") writeFileSync(FIXTURE, `${JSON.stringify(now, null, 2)}\n`);
  const before = JSON.parse(readFileSync(FIXTURE, "utf8")) as Record<string, unknown>;

  it("covers the same configs", () => {
    expect(Object.keys(now).sort()).toEqual(Object.keys(before).sort());
  });

  it.each(Object.keys(before))("%s loads to the same values", (name) => {
    expect(now[name]).toEqual(withRenamedKeys(before[name]));
  });
});
