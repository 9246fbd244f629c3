import { dynamixel2Protocol } from "./dynamixel2/dynamixel2Protocol.js";
import { feetechStsProtocol } from "./feetechSts/feetechStsProtocol.js";
import type { BusProtocol, BusProtocolName } from "./BusProtocol.js";

const PROTOCOLS: Readonly<Record<BusProtocolName, BusProtocol>> = {
  dynamixel_2: dynamixel2Protocol,
  feetech_sts: feetechStsProtocol,
};

/** The protocol named by the config's `bus.protocol`. */
export function protocolNamed(name: BusProtocolName): BusProtocol {
  return PROTOCOLS[name];
}
