import type { ClockTimer } from "../Clock.js";
import { positionOf } from "../../src/protocol/bus/servoAxes.js";
import type { EffectsSink, Outcome } from "../EffectsLog.js";
import type { FaultPlan } from "../faults.js";
import type { Logger } from "pino";
import type { BusProtocol } from "../../src/protocol/bus/index.js";
import type { BusTimers } from "./BusTimers.js";
import type { SimServo } from "./SimServo.js";

/** One goal write to a set of servos, from its start to the end of its last servo. */
export interface Motion {
  readonly key: string;
  readonly servos: Set<SimServo>;
  readonly joints: readonly string[];
  readonly from: Record<string, number>;
  readonly to: Record<string, number>;
  outcome: Outcome;
  detail: string;
  /** A seeded stall or power loss part-way, cleared when the motion ends. */
  faultTimer: ClockTimer | undefined;
}

/** Overload is bit 5 of both families' hardware-error register. */
export const OVERLOAD_BIT = 1 << 5;

const OUTCOME_RANK: Readonly<Record<Outcome, number>> = { reached: 0, stopped: 1, stalled: 2, faulted: 3 };
/** A goal this close to where a moving servo is (counts) is a hold (a stop), not a new motion. */
const HOLD_COUNTS = 200;

export interface ServoMotionsOptions {
  readonly protocol: BusProtocol;
  readonly faults: FaultPlan;
  readonly effects: EffectsSink;
  readonly logger: Logger;
  readonly all: readonly SimServo[];
  readonly timers: BusTimers;
  /** A protection trip (the conditions' shut-down), for a motion that faults at its start. */
  readonly shutDown: (servo: SimServo, now: number, bits: number, detail: string) => void;
  /** Arms the faults due part-way through a motion that has just started (FaultCues). */
  readonly cueFaults: (motion: Motion, joining: readonly SimServo[], longestMs: number, now: number) => void;
}

/**
 * The motion physics of the bus: a goal write starts a motion of the servos
 * it moves, each on its own profile; the motion ends when its last servo
 * does, with the worst outcome among them. Both ends go to the effects log.
 */
export class ServoMotions {
  readonly #options: ServoMotionsOptions;
  readonly #motions = new Map<string, Motion>();
  #nextMotion = 1;

  constructor(options: ServoMotionsOptions) {
    this.#options = options;
  }

  /** Servos whose goal or torque changed: those with somewhere to go start one motion together. */
  start(servos: readonly SimServo[], now: number): void {
    const joining = this.#joining(servos, now);
    if (joining.length === 0) return;
    const { faults, protocol, logger, effects } = this.#options;
    const failure = faults.genuineFailure();
    if (failure === "refused") {
      // Nothing moves and the goals do not take: as if every servo refused the value (Data Limit Error).
      for (const s of joining) s.set(protocol.table.goalPosition, s.registerCount(s.position));
      logger.info({ servos: joining.map((s) => s.axis.id) }, "simulated refusal: goals not taken");
      return;
    }
    const key = `bus_${this.#nextMotion++}`;
    const motion: Motion = {
      key,
      servos: new Set(joining),
      joints: joining.map((s) => s.axis.name),
      from: Object.fromEntries(joining.map((s) => [s.axis.name, positionOf(s.axis, s.position)])),
      to: Object.fromEntries(joining.map((s) => [s.axis.name, positionOf(s.axis, s.goalActual())])),
      outcome: "reached",
      detail: "",
      faultTimer: undefined,
    };
    this.#motions.set(key, motion);
    effects.append({
      event: "motion_start",
      action_id: null,
      motion: key,
      joints: motion.joints,
      from: motion.from,
      to: motion.to,
    });
    if (failure === "faulted_at_start") {
      for (const s of joining) {
        s.motionKey = key;
        this.#options.shutDown(s, now, OVERLOAD_BIT, "simulated overload at start; nothing moved");
      }
      return;
    }
    let longest = 0;
    for (const s of joining) {
      s.motionKey = key;
      const t = s.planToGoal(now);
      longest = Math.max(longest, t.endMs - now);
      this.#scheduleEnd(s, t.endMs - now);
    }
    this.#options.cueFaults(motion, joining, longest, now);
  }

  /** The servos that start moving: a goal at the present position of a moving servo is a stop, not a motion. */
  #joining(servos: readonly SimServo[], now: number): SimServo[] {
    const joining: SimServo[] = [];
    for (const s of servos) {
      s.sample(now);
      const goal = s.goalActual();
      const moving = s.moving(now);
      if (!moving && Math.abs(goal - s.position) < 1) continue;
      if (moving && Math.abs(goal - s.position) <= HOLD_COUNTS) {
        // A stop: the host holds the servo where it is.
        this.end(s, now, "stopped", "halted by a goal at the present position");
        s.planToGoal(now);
        continue;
      }
      if (moving) this.end(s, now, "stopped", "preempted: a new goal replaced the one in progress");
      joining.push(s);
    }
    return joining;
  }

  #scheduleEnd(s: SimServo, inMs: number): void {
    const { timers } = this.#options;
    if (s.endTimer) timers.clear(s.endTimer);
    s.endTimer = timers.after(Math.max(0, inMs), () => {
      s.endTimer = undefined;
      this.end(s, timers.now(), "reached", "");
    });
  }

  /** Takes a servo out of its motion with this outcome; the motion ends when its last servo does. */
  end(s: SimServo, now: number, outcome: Outcome, detail: string): void {
    const { timers } = this.#options;
    if (s.endTimer) timers.clear(s.endTimer);
    s.endTimer = undefined;
    const key = s.motionKey;
    s.motionKey = undefined;
    if (outcome !== "reached") s.freeze(now);
    if (key === undefined) return;
    const motion = this.#motions.get(key);
    if (!motion) return;
    s.sample(now);
    motion.servos.delete(s);
    if (OUTCOME_RANK[outcome] > OUTCOME_RANK[motion.outcome]) {
      motion.outcome = outcome;
      motion.detail = detail;
    }
    if (motion.servos.size > 0) return;
    this.#motions.delete(key);
    if (motion.faultTimer) timers.clear(motion.faultTimer);
    const to = Object.fromEntries(
      motion.joints.map((name) => {
        const servo = this.#options.all.find((x) => x.axis.name === name);
        return [name, servo ? positionOf(servo.axis, servo.position) : Number.NaN];
      }),
    );
    this.#options.effects.append({
      event: "motion_end",
      action_id: null,
      motion: key,
      joints: motion.joints,
      from: motion.from,
      to,
      outcome: motion.outcome,
      detail: motion.detail,
    });
  }
}
