import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import type { BusProtocolName } from "../../src/protocol/bus/index.js";

/** The default simulated arm on a servo bus: joints on ids 1–6 (4096 counts/rev, centre 2048), the gripper on id 7. */
export function busTestConfig(
  protocol: BusProtocolName,
  overrides: { observe?: Record<string, number>; baud?: number } = {},
): ArmConfig {
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as {
    arm: { joints: Record<string, unknown>[]; gripper: Record<string, unknown> };
    observe: Record<string, number>;
  };
  // The servo-bus tests judge the bus, not the workspace: the sim arm's URDF, envelope and link volumes stay out of them.
  const { urdf: _urdf, base_link: _base, tip_link: _tip, ...arm } = raw.arm as Record<string, unknown>;
  raw.arm = arm as typeof raw.arm;
  delete (raw as Record<string, unknown>).workspace;
  delete (raw as Record<string, unknown>).link_volumes;
  raw.arm.joints = raw.arm.joints.map((j, i) => ({
    ...j,
    servo: { id: i + 1, counts_per_rev: 4096, center: 2048, sign: i % 2 === 0 ? 1 : -1 },
  }));
  raw.arm.gripper = {
    ...raw.arm.gripper,
    servo: {
      id: 7,
      closed: 1400,
      open: 2700,
      ...(protocol === "dynamixel_2" ? { current_limit: 300 } : { torque_limit: 500 }),
    },
  };
  return parseConfig(
    {
      ...raw,
      bus: { protocol, baud: overrides.baud ?? 1_000_000 },
      observe: { ...raw.observe, budget_ms: 300, max_ms: 3000, query_interval_ms: 50, ...overrides.observe },
    },
    `bus test config (${protocol})`,
  );
}
