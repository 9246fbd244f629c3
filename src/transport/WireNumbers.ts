/**
 * How a transport's wire carries the numbers of a motion. Plan admission and
 * a transport's last check compare targets with limits as the arm will see
 * them, so a value the arm would refuse (or round past a limit) is refused
 * before anything is recorded or sent.
 */
export interface WireNumbers {
  /** Names the representation in messages: "float32", "whole servo counts", "float64". */
  readonly name: string;
  /** A target (rad, or 0..1 for a gripper) as the arm receives it. */
  target(axis: string, value: number): number;
  /** A speed fraction as the arm receives it. */
  speed(value: number): number;
}

/** Numbers as JavaScript holds them: ROS 2 messages (float64 fields), in-process fakes. */
export const FLOAT64_WIRE: WireNumbers = { name: "float64", target: (_axis, value) => value, speed: (value) => value };

/**
 * IEEE float32, as armbridge serial protocol v1 carries targets and speed
 * (docs/serial-protocol.md §2); the firmware compares its float32 target
 * with float32 limits (the HELLO's, equal to the config's at float32).
 */
export const FLOAT32_WIRE: WireNumbers = {
  name: "float32",
  target: (_axis, value) => Math.fround(value),
  speed: (value) => Math.fround(value),
};
