import type { BusProtocolName, RegisterBlock } from "./BusProtocol.js";

/**
 * A register block only armbridge-sim has: how each simulated servo is
 * mounted on its joint (the count at position 0 and counts per unit,
 * signed), behind a magic word. The simulator is calibrated by
 * construction: its servos sit exactly where its config (or its bus layout)
 * puts them, and this block says where that is, so a bridge can check its
 * own config against the truth instead of trusting a default.
 *
 * A real servo has nothing here: Dynamixel answers a read of an undefined
 * address with Access Error (Protocol 2.0 status error 7); whatever a
 * Feetech servo answers lacks the magic word. Either way the arm counts as
 * uncalibrated. Addresses: 0xF000 is past every DYNAMIXEL X control table;
 * 0xE0 is past the end of the STS/SMS table (its last register is 86).
 */
export const SIM_MOUNT_BLOCK: Readonly<Record<BusProtocolName, RegisterBlock>> = {
  dynamixel_2: { address: 0xf000, size: 16 },
  feetech_sts: { address: 0xe0, size: 16 },
};

const MAGIC = [0x41, 0x42, 0x53, 0x4d]; // "ABSM"
const VERSION = 1;
/** Fixed point: 1/256 count. */
const SCALE = 256;

export interface SimMount {
  readonly kind: "joint" | "gripper";
  /** The count at position 0 (a joint's centre, the gripper's closed count). */
  readonly zeroCount: number;
  /** Counts per radian (signed) for a joint; the gripper's closed → open travel in counts. */
  readonly countsPerUnit: number;
}

export function encodeSimMount(mount: SimMount): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes.set(MAGIC, 0);
  bytes[4] = VERSION;
  bytes[5] = mount.kind === "joint" ? 0 : 1;
  const view = new DataView(bytes.buffer);
  view.setInt32(8, Math.round(mount.zeroCount * SCALE), true);
  view.setInt32(12, Math.round(mount.countsPerUnit * SCALE), true);
  return bytes;
}

/** The mount in a block read from a servo, or undefined when it is not the simulator's block. */
export function decodeSimMount(bytes: Uint8Array): SimMount | undefined {
  if (bytes.length !== 16 || !MAGIC.every((b, i) => bytes[i] === b) || bytes[4] !== VERSION) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return {
    kind: bytes[5] === 0 ? "joint" : "gripper",
    zeroCount: view.getInt32(8, true) / SCALE,
    countsPerUnit: view.getInt32(12, true) / SCALE,
  };
}
