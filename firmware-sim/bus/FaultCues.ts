import type { FaultPlan } from "../faults.js";
import type { BusTimers } from "./BusTimers.js";
import type { Motion } from "./ServoMotions.js";
import type { SimServo } from "./SimServo.js";

export interface FaultCuesOptions {
  readonly faults: FaultPlan;
  readonly timers: BusTimers;
  /** Axes whose next motion stalls half-way, once each (--stall-joint). */
  readonly stallJoints: readonly string[];
  /** Axes whose next motion loses the bus's power half-way, once each (--power-loss-joint). */
  readonly powerLossJoints: readonly string[];
  /** How long a power loss on cue lasts (ms). */
  readonly powerLossMs: number;
  /** The bus answers nothing until then (a seeded freeze). */
  readonly freezeReplies: (untilMs: number) => void;
  readonly stall: (servo: SimServo, now: number, detail: string) => void;
  readonly powerLossOfServo: (servo: SimServo, now: number, why: string) => void;
  readonly powerLossOfBus: (outageMs: number, why: string) => void;
}

/**
 * The faults due part-way through a motion: one on cue (a stall or a power
 * loss of the next motion of an axis named on the command line), else the
 * seeded ones of the fault plan (a stall, a servo's power cycle, a freeze).
 */
export class FaultCues {
  readonly #options: FaultCuesOptions;
  readonly #stallOnCue: Set<string>;
  readonly #powerLossOnCue: Set<string>;

  constructor(options: FaultCuesOptions) {
    this.#options = options;
    this.#stallOnCue = new Set(options.stallJoints);
    this.#powerLossOnCue = new Set(options.powerLossJoints);
  }

  /** Arms this motion's fault, if it has one, on its fault timer. */
  arm(motion: Motion, joining: readonly SimServo[], longestMs: number, now: number): void {
    const { faults, timers } = this.#options;
    const seeded = faults.midMotion();
    const onCue = joining.find((s) => this.#stallOnCue.delete(s.axis.name));
    const powerCue = onCue ? undefined : joining.find((s) => this.#powerLossOnCue.delete(s.axis.name));
    // A fault on cue wins over the seeded faults of this motion (drawn all the same, so the seed's later draws do not shift).
    const plan = onCue
      ? { stall: { fraction: 0.5, pick: 0 }, ...(seeded.freezeMs === undefined ? {} : { freezeMs: seeded.freezeMs }) }
      : powerCue
        ? {}
        : seeded;
    const victim = onCue ?? joining[Math.floor((plan.stall?.pick ?? 0) * joining.length)] ?? joining[0];
    if (plan.freezeMs !== undefined) this.#options.freezeReplies(now + plan.freezeMs);
    const key = motion.key;
    if (powerCue) {
      motion.faultTimer = timers.after(longestMs * 0.5, () =>
        this.#options.powerLossOfBus(this.#options.powerLossMs, `power loss on cue (${powerCue.axis.name})`),
      );
    } else if (plan.stall && victim) {
      motion.faultTimer = timers.after(longestMs * plan.stall.fraction, () => {
        const t = timers.now();
        if (victim.motionKey !== key) return;
        this.#options.stall(victim, t, "simulated stall: blocked part-way");
      });
    } else if (plan.reboot && victim) {
      motion.faultTimer = timers.after(longestMs * plan.reboot.fraction, () => {
        if (victim.motionKey !== key) return;
        this.#options.powerLossOfServo(victim, timers.now(), "simulated power loss");
      });
    }
  }
}
