import type { BusProtocol } from "../BusProtocol.js";
import { sts } from "./instructions.js";
import { encodeStsStatus, STS_BROADCAST_ID, STS_INSTRUCTION, STS_OVERHEAD, StsDecoder, stsStatusOf } from "./packet.js";
import { STS_TABLE } from "./stsTable.js";

/**
 * Feetech's status error byte carries the hardware-error bits themselves
 * (the same bits as the Status register at 65; scservo_sdk ERRBIT_*), so
 * any set bit is a hardware alert. There is no reboot instruction
 * (scservo_sdk protocol_packet_handler.py: ping, read, write, reg write,
 * action, sync read/write, and RESET, which restores factory settings): the
 * Status bits follow the condition, and a servo that unloaded on one stays
 * torque-off until a host enables torque again (see BusSimulator).
 */
export const feetechStsProtocol: BusProtocol = {
  name: "feetech_sts",
  broadcastId: STS_BROADCAST_ID,
  instructionOverhead: STS_OVERHEAD,
  statusOverhead: STS_OVERHEAD,
  addressBytes: 1,
  table: STS_TABLE,
  instructions: { ...STS_INSTRUCTION, reboot: undefined },
  ping: sts.ping,
  read: sts.read,
  write: sts.write,
  syncRead: sts.syncRead,
  syncWrite: sts.syncWrite,
  reboot: undefined,
  status: encodeStsStatus,
  createDecoder: () => new StsDecoder(),
  statusOf: stsStatusOf,
  isInstruction: () => true,
  statusErrorNames: () => [],
  hardwareAlert: (error) => error !== 0,
};
