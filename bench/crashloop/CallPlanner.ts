import type { ArmConfig, JointConfig } from "../../src/config/ArmConfig.js";
import type { InFlightMotion } from "../../src/safety/InFlightMotions.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import type { EffectsTail } from "./EffectsTail.js";

/** One call id the harness made, and what it learnt of it. */
export interface CallRecord {
  readonly id: string;
  readonly args: { readonly positions: Readonly<Record<string, number>>; readonly speed: number };
  /** From any answer that carried one. */
  knownActionId: string | undefined;
  answered: boolean;
  resentAfterLoss: boolean;
  /** Aimed to meet an unsettled motion's path outside the envelope (CrashLoopProbes): the bridge must refuse it. */
  readonly probe: boolean;
}

export interface CallPlannerDeps {
  readonly config: ArmConfig;
  readonly seed: number;
  readonly random: () => number;
  readonly effects: EffectsTail;
  /** Joints an unsettled motion holds (quarantined): no call is planned on them. */
  readonly heldJoints: () => ReadonlySet<string>;
  /** Unsettled motions the bridge counts in flight: planned paths must pass the envelope alongside them. */
  readonly inFlight: () => readonly InFlightMotion[];
}

/**
 * What the harness asks the arm to do: move_joints calls with seeded targets
 * that the bridge should accept — inside the joint limits, above min_speed,
 * on joints no unsettled motion holds, and with paths inside the workspace
 * envelope from where the joints are (or will be, later in the same turn)
 * alongside every motion the bridge counts in flight. Every call made is kept
 * in `calls` for re-sending.
 */
export class CallPlanner {
  readonly calls = new Map<string, CallRecord>();
  readonly #d: CallPlannerDeps;
  readonly #joints: readonly JointConfig[];
  /** Targets of the turn being planned: a later call of the turn starts where an earlier one left the joint. */
  readonly #planned = new Map<string, number>();
  #next = 0;

  constructor(deps: CallPlannerDeps) {
    this.#d = deps;
    this.#joints = deps.config.arm.joints;
  }

  /** A new turn: its calls no longer start where the previous turn's planned targets were. */
  newTurn(): void {
    this.#planned.clear();
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#d.random() * list.length)]!;
  }

  between(lo: number, hi: number): number {
    return lo + this.#d.random() * (hi - lo);
  }

  /** Where a joint is, or is headed: this turn's earlier target, the last motion_end's rest, or a running motion's target. */
  restOf(joint: JointConfig): number {
    const inTurn = this.#planned.get(joint.name);
    if (inTurn !== undefined) return inTurn;
    const events = this.#d.effects.read();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if ((e.event === "motion_end" || e.event === "motion_start") && e.to?.[joint.name] !== undefined)
        return e.to[joint.name]!;
    }
    return joint.home;
  }

  /** Every joint's rest (restOf), `extra` applied. */
  pose(extra: Readonly<Record<string, number>> = {}): Record<string, number> {
    return { ...Object.fromEntries(this.#joints.map((j) => [j.name, this.restOf(j)])), ...extra };
  }

  /**
   * The bridge checks each motion's path from the pose when its turn comes, and
   * this turn's other calls may or may not have moved by then: both must pass,
   * alongside the motions it counts in flight.
   */
  insideEnvelope(target: Readonly<Record<string, number>>): boolean {
    const inFlight = this.#d.inFlight();
    const config = this.#d.config;
    return (
      checkMotionEnvelope(config, this.pose(), target, "move_joints", inFlight).ok &&
      checkMotionEnvelope(
        config,
        { ...this.pose(), ...Object.fromEntries(this.#planned) },
        target,
        "move_joints",
        inFlight,
      ).ok
    );
  }

  /** `n` different joints no unsettled motion holds, a seeded Fisher–Yates pick. */
  distinctJoints(n: number): JointConfig[] {
    const held = this.#d.heldJoints();
    const pool = this.#joints.filter((j) => !held.has(j.name));
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(this.#d.random() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  }

  /**
   * A target for `j` a move of about `durationMs` can reach above min_speed,
   * inside its limits and, up to a few draws, with a path inside the envelope.
   */
  drawTarget(j: JointConfig, durationMs: number): number {
    const rest = this.restOf(j);
    const minSpeed = this.#d.config.limits.minSpeed;
    // Far enough that the asked duration is not shorter than min_speed allows.
    const shortest = Math.min(minSpeed * j.maxVelocity * (durationMs / 1000), (j.max - j.min) / 2 - 0.1);
    let target = rest;
    for (let draw = 0; draw < 12; draw++) {
      const distance = Math.max(shortest, this.between(0.25, 0.85));
      target = rest + (this.#d.random() < 0.5 ? -distance : distance);
      if (target < j.min + 0.05 || target > j.max - 0.05) target = rest - Math.sign(target - rest) * distance;
      target = Number(Math.min(j.max - 0.05, Math.max(j.min + 0.05, target)).toFixed(3));
      if (this.insideEnvelope({ [j.name]: target })) break;
    }
    return target;
  }

  /**
   * A move of `chosen` taking about `durationMs`; `atTarget` aims at where the
   * joint already is (the command then has nothing to do).
   */
  newCall(chosen: readonly JointConfig[], durationMs: number, atTarget: "at_target" | "away" = "away"): CallRecord {
    if (atTarget === "at_target") {
      const positions = Object.fromEntries(chosen.map((j) => [j.name, Number(this.restOf(j).toFixed(4))]));
      return this.#record(positions, 0.5, { probe: false });
    }
    const positions: Record<string, number> = {};
    for (const j of chosen) positions[j.name] = this.drawTarget(j, durationMs);
    return this.callTo(positions, durationMs);
  }

  /** A move to these targets taking about `durationMs` (speed from the farthest joint, at least min_speed). */
  callTo(
    positions: Readonly<Record<string, number>>,
    durationMs: number,
    kind: { readonly probe: boolean } = { probe: false },
  ): CallRecord {
    let speed = this.#d.config.limits.minSpeed;
    for (const j of this.#joints) {
      const target = positions[j.name];
      if (target === undefined) continue;
      speed = Math.max(speed, Math.abs(target - this.restOf(j)) / (j.maxVelocity * (durationMs / 1000)));
    }
    return this.#record(positions, Number(Math.min(1, speed).toFixed(3)), kind);
  }

  #record(positions: Readonly<Record<string, number>>, speed: number, kind: { readonly probe: boolean }): CallRecord {
    for (const [name, target] of Object.entries(positions)) this.#planned.set(name, target);
    const record: CallRecord = {
      id: `cl${this.#d.seed}-${(this.#next++).toString().padStart(4, "0")}`,
      args: { positions, speed },
      knownActionId: undefined,
      answered: false,
      resentAfterLoss: false,
      probe: kind.probe,
    };
    this.calls.set(record.id, record);
    return record;
  }
}
