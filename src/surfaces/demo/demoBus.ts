import { join } from "node:path";
import { packageRoot } from "../../config/packageRoot.js";
import { ArmbridgeError } from "../../errors.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../../protocol/bus/index.js";

/** The demo on a simulated servo bus instead of the simulated serial arm. */
export interface DemoBus {
  readonly protocol: BusProtocolName;
  /** The arm config both the simulator and the bridge load (its bus: section names the servos). */
  readonly config: string;
  /** The scripted session, written for the joint names the SO-101 and Koch configs share. */
  readonly session: string;
  /** The joint the bus session expects to stall on cue (turn 4), so it shows an `unknown`. */
  readonly stallJoint: string;
}

/** The shipped arm for each bus: SO-101 on Feetech STS, the Koch v1.1 follower on Dynamixel 2.0. */
const SHIPPED_CONFIG: Readonly<Record<BusProtocolName, string>> = {
  feetech_sts: "so101.yaml",
  dynamixel_2: "koch-follower.yaml",
};

export const DEMO_BUS_HELP = `  --bus PROTOCOL         the arm on a simulated servo bus: ${BUS_PROTOCOLS.join(" or ")} (firmware-sim --bus,
                         config/${SHIPPED_CONFIG.feetech_sts} or config/${SHIPPED_CONFIG.dynamixel_2} unless --config, session config/demo-session-bus.jsonl)`;

/** `--bus` read into what the demo starts; undefined without it. A config given with --config must be for that bus. */
export function demoBusOf(flag: string | undefined, config: string | undefined): DemoBus | undefined {
  if (flag === undefined) return undefined;
  const protocol = BUS_PROTOCOLS.find((p) => p === flag);
  if (!protocol)
    throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
      message: `--bus ${JSON.stringify(flag)} must be ${BUS_PROTOCOLS.join(" or ")}`,
    });
  return {
    protocol,
    config: config ?? join(packageRoot(), "config", SHIPPED_CONFIG[protocol]),
    session: join(packageRoot(), "config", "demo-session-bus.jsonl"),
    stallJoint: "wrist_flex",
  };
}
