import type { ServoAxis } from "../../protocol/bus/servoAxes.js";

/** One servo as the status loop last read it. */
export interface ServoState {
  readonly axis: ServoAxis;
  readonly memory: Uint8Array;
  stampMs: number;
  /** Stamp of each status block's last answer. */
  readonly blockStamps: number[];
  /** We enabled torque; a later read of torque off means it lost power (or shut down on a hardware error). */
  armed: boolean;
  /** When we armed it: a torque reading older than this says nothing about power. */
  armedAt: number;
  arming: boolean;
  /** An operator's recovery of this servo is under way: a second one waits for nothing and sends nothing (ServoArming.recover). */
  recovering: boolean;
  powerLosses: number;
  /** Status reads in a row this servo did not answer (a stall of our own event loop costs one, a silent servo every one). */
  missedReads: number;
  /**
   * The hardware error this servo shut down on, from the first read that showed
   * it until an operator recovers it. Kept after the bits clear (a Feetech
   * Status follows the condition), so a tripped servo is never mistaken for
   * one that lost power and re-armed behind the operator's back.
   */
  tripped: string | undefined;
  /** When its present temperature and voltage were last read (where they are not in the status blocks); 0 = never. */
  conditionAt: number;
  /** When its own limits (temperature, voltage, current) were last read; 0 = never. */
  limitsAt: number;
  /** Set when the gripper's configured force cap could not be put in force. */
  gripLimitProblem: string | undefined;
}

export function newServoState(axis: ServoAxis, statusBlocks: number): ServoState {
  return {
    axis,
    memory: new Uint8Array(256),
    stampMs: 0,
    blockStamps: Array.from({ length: statusBlocks }, () => 0),
    armed: false,
    armedAt: 0,
    arming: false,
    recovering: false,
    powerLosses: 0,
    missedReads: 0,
    tripped: undefined,
    conditionAt: 0,
    limitsAt: 0,
    gripLimitProblem: undefined,
  };
}
