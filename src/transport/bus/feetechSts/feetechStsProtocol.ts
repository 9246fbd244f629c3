import type { BusProtocol } from "../protocol/BusProtocol.js";
import { sts } from "./instructions.js";
import { encodeStsStatus, STS_BROADCAST_ID, STS_INSTRUCTION, STS_OVERHEAD, StsDecoder, stsStatusOf } from "./packet.js";
import { STS_TABLE } from "./stsTable.js";

/**
 * Feetech's status error byte carries the hardware-error bits themselves
 * (the same bits as the Status register at 65; scservo_sdk ERRBIT_*), so
 * any set bit is a hardware alert. There is no reboot instruction: a servo
 * clears its errors on power-up.
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
  status: encodeStsStatus,
  createDecoder: () => new StsDecoder(),
  statusOf: stsStatusOf,
  isInstruction: () => true,
  statusErrorNames: () => [],
  hardwareAlert: (error) => error !== 0,
};
