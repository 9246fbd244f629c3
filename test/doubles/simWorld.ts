import type { Distro } from "./controllerVersions.js";
import type { SimTopicBus } from "./simTopicBus.js";

/** What the simulated controllers and drivers need from the simulated graph. */
export interface SimWorld {
  /** ROS time in ms (sim time under a sim clock). */
  now(): number;
  readonly distro: Distro;
  /** The ros2_controllers release the controllers come from. */
  readonly ros2ControllersVersion: string;
  /**
   * The robot's speed scaling as the hardware reports it (a UR speed slider,
   * 0 when the program is paused on the pendant). Scaled controllers read it.
   */
  readonly speedScaling: number;
  /** The real controller manager's update period (s): a hold is one step of this long. */
  readonly controlPeriodS: number;
  readonly bus: SimTopicBus;
  position(joint: string): number;
  velocity(joint: string): number;
  /** The velocity a state interface reads: true velocity plus sensor noise. */
  measuredVelocity(joint: string): number;
  drive(joint: string, position: number, velocity: number): void;
  setVelocity(joint: string, velocity: number): void;
  /** A node logs to /rosout (rcl_interfaces/msg/Log). */
  log(node: string, level: LogLevel, msg: string): void;
}

/** rcl_interfaces/msg/Log levels. */
export const LOG_LEVEL = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, FATAL: 50 } as const;
export type LogLevel = (typeof LOG_LEVEL)[keyof typeof LOG_LEVEL];

export function rosTime(ms: number): { sec: number; nanosec: number } {
  return { sec: Math.floor(ms / 1000), nanosec: Math.round((((ms % 1000) + 1000) % 1000) * 1e6) };
}
