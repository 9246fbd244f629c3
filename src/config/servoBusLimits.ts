/**
 * What a servo bus protocol allows, as the config checks it (the transport's
 * codecs live a floor up, in transport/bus; these are the same facts, read
 * by the config before anything is opened).
 *
 * Ids — Dynamixel Protocol 2.0: 0–252 (0xFC); 253 (0xFD) and 255 (0xFF) are
 * never ids because they would repeat the header, and 254 (0xFE) is the
 * broadcast id (ROBOTIS e-Manual, "DYNAMIXEL Protocol 2.0", Packet ID;
 * ROBOTIS-GIT/emanual docs/en/dxl/protocol2.md @ 01179568). Feetech SCS/STS:
 * 0–253, 254 broadcast (Feetech "Serial Bus Smart Control Servo
 * Communication Protocol" manual V1.01, Instruction Packet, ID No.).
 *
 * Positions — both buses drive position mode, where one turn is
 * 0..counts_per_rev − 1 and a goal is bounded by the servo's own
 * Min/Max_Position_Limit (Dynamixel X: Goal Position 116, "Min Position
 * Limit(52) ~ Max Position Limit(48)", initial 0–4,095, and a goal outside
 * is refused with a Data Limit Error; Feetech STS3215: 0–4095, and the
 * servo stops at the limit). LeRobot writes a calibration's
 * range_min/range_max into those two registers (motors_bus.py
 * write_calibration), so a joint's travel must map inside them or its goals
 * are refused or cut short (the transport also refuses, unsent, a goal
 * outside the limits it reads from the servo).
 */
export const SERVO_ID_RANGE = {
  dynamixel_2: { min: 0, max: 252 },
  feetech_sts: { min: 0, max: 253 },
} as const satisfies Record<string, { min: number; max: number }>;

export type ServoBusProtocol = keyof typeof SERVO_ID_RANGE;

/** The widest id any supported protocol allows: the schema's bound before it knows the protocol. */
export const MAX_SERVO_ID = Math.max(...Object.values(SERVO_ID_RANGE).map((r) => r.max));

/** The servo count a joint position maps to: `center + position × counts_per_rev / 2π × sign`. */
export function countOfJointPosition(servo: { readonly counts_per_rev: number; readonly center: number; readonly sign: number }, position: number): number {
  return servo.center + (position * servo.counts_per_rev * servo.sign) / (2 * Math.PI);
}
