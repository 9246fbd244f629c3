import type { BusPacket, PacketDecoder, StatusReply } from "./BusPacket.js";
import type { ServoConditionTable } from "./ServoConditionTable.js";
import type { ServoSetupTable } from "./ServoSetupTable.js";
import type { Register } from "./wordCodec.js";

/** The `bus.protocol` values of the arm config. */
export const BUS_PROTOCOLS = ["dynamixel_2", "feetech_sts"] as const;
export type BusProtocolName = (typeof BUS_PROTOCOLS)[number];

/** A contiguous run of registers, read or written in one instruction. */
export interface RegisterBlock {
  readonly address: number;
  readonly size: number;
}

/**
 * What armbridge needs of one servo family's control table. The sim and the
 * transport both read it, so a register the bridge uses is one the sim keeps.
 * See docs/servo-bus.md "Adding a servo model".
 */
export interface ServoControlTable {
  readonly family: string;
  /** Model name → the number the servo reports at address 0 (for logs and the sim's power-on table). */
  readonly modelNumbers: Readonly<Record<string, number>>;
  readonly modelNumber: Register;
  readonly torqueEnable: Register;
  readonly goalPosition: Register;
  readonly presentPosition: Register;
  readonly presentVelocity: Register;
  readonly moving: Register;
  /** The hardware-error bit field (Dynamixel Hardware_Error_Status, Feetech Status). */
  readonly hardwareError: Register;
  readonly hardwareErrorNames: Readonly<Record<number, string>>;
  readonly operatingMode: Register;
  /** Operating_Mode value of plain position control. */
  readonly positionMode: number;
  /** Operating_Mode value of current-based position control, where the model has it. */
  readonly currentBasedPositionMode: number | undefined;
  /** The gripper's force cap: Current_Limit (Dynamixel, EEPROM) or Torque_Limit (Feetech, RAM). */
  readonly gripLimit: Register;
  /** Whether gripLimit and operatingMode may only be written with torque off (EEPROM on Dynamixel X). */
  readonly gripLimitNeedsTorqueOff: boolean;
  /** The registers one sync write per motion fills: profile acceleration, profile velocity, goal. */
  readonly motionBlock: RegisterBlock;
  encodeMotion(goal: number, velocityUnits: number, accelerationUnits: number): Uint8Array;
  /** Blocks the status loop sync-reads every cycle; together they cover position, velocity, moving, torque and hardware error. */
  readonly statusBlocks: readonly RegisterBlock[];
  /**
   * Index in statusBlocks of the block with torque enable and hardware error
   * that the status loop may read only when needed (StatusSchedule): set
   * where every status packet's error byte flags a hardware error (the
   * Dynamixel 2.0 alert bit); undefined = every block every cycle.
   */
  readonly healthBlock?: number;
  /** Counts per second of one unit of the profile-velocity register (0 = the servo's maximum). */
  readonly profileVelocityUnit: number;
  /** Counts per second² of one unit of the profile-acceleration register (0 = the servo's maximum). */
  readonly profileAccelerationUnit: number;
  readonly maxProfileVelocityUnits: number;
  readonly maxProfileAccelerationUnits: number;
  /** Counts per second of one unit of Present_Velocity. */
  readonly presentVelocityUnit: number;
  /** The registers of setting a servo up (id, baud, EEPROM guard, health), for the bring-up tools. */
  readonly setup: ServoSetupTable;
  /** Where the servo reports temperature, supply and effort, its own limits, and what its error bits mean (ServoHealth). */
  readonly condition: ServoConditionTable;
}

/** One protocol: its framing, its instructions and the servo family the bridge drives with it. */
export interface BusProtocol {
  readonly name: BusProtocolName;
  readonly broadcastId: number;
  /** Bytes of an instruction / status packet besides parameters / data (for wire-time math). */
  readonly instructionOverhead: number;
  readonly statusOverhead: number;
  /** Bytes of an address and of a length field in read, write and sync instructions. */
  readonly addressBytes: 1 | 2;
  readonly table: ServoControlTable;
  readonly instructions: {
    readonly ping: number;
    readonly read: number;
    readonly write: number;
    readonly syncRead: number;
    readonly syncWrite: number;
    /** Undefined when the protocol has no reboot instruction. */
    readonly reboot: number | undefined;
  };
  ping(id: number): Uint8Array;
  read(id: number, address: number, length: number): Uint8Array;
  write(id: number, address: number, data: Uint8Array): Uint8Array;
  syncRead(address: number, length: number, ids: readonly number[]): Uint8Array;
  syncWrite(
    address: number,
    length: number,
    entries: readonly { readonly id: number; readonly data: Uint8Array }[],
  ): Uint8Array;
  /** The reboot instruction to one servo (answered by a status packet before it restarts); undefined where the protocol has none. */
  readonly reboot: ((id: number) => Uint8Array) | undefined;
  /** A servo's status packet (the sim's side). */
  status(id: number, error: number, data: Uint8Array): Uint8Array;
  createDecoder(): PacketDecoder;
  /** A packet from a servo, read as a status reply; undefined if it is not one. */
  statusOf(packet: BusPacket): StatusReply | undefined;
  /** Whether a packet from the host is an instruction (Dynamixel status packets carry 0x55 instead). */
  isInstruction(packet: BusPacket): boolean;
  /** Names of the errors a status packet's error byte reports (protocol errors, not hardware alerts). */
  statusErrorNames(error: number): string[];
  /** Whether a status packet's error byte says the servo has a hardware error. */
  hardwareAlert(error: number): boolean;
}

/** The names of the set bits of a hardware-error register. */
export function hardwareErrorNames(table: ServoControlTable, bits: number): string[] {
  const names: string[] = [];
  for (let bit = 0; bit < 8; bit++) {
    if (bits & (1 << bit)) names.push(table.hardwareErrorNames[bit] ?? `hardware error bit ${bit}`);
  }
  return names;
}

/**
 * Mean bytes on the wire of one status cycle of `n` servos, given how often
 * each status block was read per cycle (1 for a block read every cycle; the
 * measured share for an alert-gated one).
 */
export function statusCycleWireBytes(protocol: BusProtocol, n: number, readsPerCycle: readonly number[]): number {
  return protocol.table.statusBlocks.reduce(
    (sum, b, i) => sum + (readsPerCycle[i] ?? 1) * syncReadWireBytes(protocol, b.size, n),
    0,
  );
}

/** Bytes on the wire of a sync read of `size` bytes from `n` servos: one instruction, n replies. */
export function syncReadWireBytes(protocol: BusProtocol, size: number, n: number): number {
  const instruction = protocol.instructionOverhead + 2 * protocol.addressBytes + n;
  const replies = n * (protocol.statusOverhead + size);
  return instruction + replies;
}
