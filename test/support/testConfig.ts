import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";

/** The default simulated arm with test-sized timeouts and observation budgets. */
export function testConfig(
  overrides: {
    observe?: Record<string, number>;
    timeouts_ms?: Record<string, number>;
    stale_after_ms?: number;
    approval?: Record<string, unknown>;
    approval_timeout_s?: number;
  } = {},
): ArmConfig {
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
  return parseConfig(
    {
      ...raw,
      // As loadConfig does: the URDF path is relative to the config file.
      arm: { ...raw.arm, urdf: join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm?.urdf)) },
      observe: { ...raw.observe, budget_ms: 300, max_ms: 3000, query_interval_ms: 50, ...overrides.observe },
      timeouts_ms: { ...raw.timeouts_ms, ...overrides.timeouts_ms },
      ...(overrides.stale_after_ms === undefined ? {} : { stale_after_ms: overrides.stale_after_ms }),
      ...(overrides.approval === undefined ? {} : { approval: overrides.approval }),
      ...(overrides.approval_timeout_s === undefined ? {} : { approval_timeout_s: overrides.approval_timeout_s }),
    },
    "test config",
  );
}

/**
 * The same config with no link volumes at all (every URDF link's volumes
 * replaced by none, as `link_volumes: {link: []}` does): the envelope checks
 * link frames only, as it did before volumes. For tests about how paths and
 * motions in flight are certified, with envelopes sized to the frames.
 */
export function framesOnly(config: ArmConfig): ArmConfig {
  const urdf = config.arm.urdf;
  if (urdf === undefined) return config;
  const links = [...readFileSync(urdf, "utf8").matchAll(/<link\s+name="([^"]+)"/g)].map((m) => m[1]!);
  return { ...config, linkVolumes: Object.fromEntries(links.map((l) => [l, []])) };
}
