import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { actuatorsOf } from "../../src/config/actuators.js";
import { ArmbridgeError } from "../../src/errors.js";
import { LinkStateTracker } from "../../src/transport/link/LinkStateTracker.js";
import type {
  ActionRecord,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  Transport,
} from "../../src/transport/Transport.js";

/**
 * An in-process arm for executor unit tests. Its one essential property, the
 * seed's `asyncio.shield` lesson: when our wait ends, the motion goes on. A
 * test in which cancelling the wait also stops the work would prove nothing.
 *
 * Behaviours are chosen per command so one test can mix them:
 * - reach: moves linearly to the target over `motionMs`, then reports reached
 * - refuse: NACKs the command; nothing moves
 * - fault_no_motion: accepts, then faults before moving (moved: false)
 * - stall_midway: moves half way, then stalls (moved: true)
 * - forget: moves to the target but then "reboots": no record of the action, status stops
 * - drop: the command never arrives (as if lost on the wire); the arm never hears of it
 */
export type FakeBehaviour = "reach" | "refuse" | "fault_no_motion" | "stall_midway" | "forget" | "drop";

export interface FakeEffect {
  readonly actionId: string;
  readonly axes: readonly string[];
  readonly startedAt: number;
  endedAt: number | undefined;
  outcome: "reached" | "stalled" | "faulted" | "stopped" | undefined;
}

export interface FakeArmOptions {
  readonly statusHz?: number;
  readonly motionMs?: (command: MotionCommand) => number;
  readonly behaviour?: (command: MotionCommand) => FakeBehaviour;
  /** Answer queries (default true); false models a dead link. */
  readonly answersQueries?: boolean;
}

interface Motion {
  readonly command: MotionCommand;
  readonly from: Record<string, number>;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly behaviour: FakeBehaviour;
  readonly effect: FakeEffect;
  timer: NodeJS.Timeout | undefined;
}

export class FakeArm implements Transport {
  readonly kind = "fake";
  readonly effects: FakeEffect[] = [];
  readonly sent: MotionCommand[] = [];
  readonly #records = new Map<string, ActionRecord>();
  readonly #positions: Record<string, number> = {};
  readonly #active = new Map<string, Motion>();
  readonly #listeners = new Set<(s: ArmStatus) => void>();
  readonly #waiters = new Map<string, Set<(r: ActionRecord) => void>>();
  readonly #options: FakeArmOptions;
  #statusTimer: NodeJS.Timeout | undefined;
  #latest: ArmStatus | undefined;
  /** Tests move it by hand (`link.set("reconnecting", …)`) to play a lost link. */
  readonly link = new LinkStateTracker({ lastStatusAt: () => this.#latest?.stampMs });
  #frozen = false;
  #closed = false;

  constructor(config: ArmConfig, options: FakeArmOptions = {}) {
    this.#options = options;
    for (const a of actuatorsOf(config)) this.#positions[a.name] = a.home;
  }

  async open(): Promise<void> {
    this.link.set("connected");
    this.#publish();
    this.#statusTimer = setInterval(() => this.#publish(), 1000 / (this.#options.statusHz ?? 100));
  }

  linkState(): LinkState {
    return this.link.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.link.subscribe(listener);
  }

  async close(): Promise<void> {
    this.link.set("down", { detail: "the transport is closed" });
    this.#closed = true;
    clearInterval(this.#statusTimer);
    for (const m of this.#active.values()) clearTimeout(m.timer);
    this.#active.clear();
  }

  /** Stops the status stream (a frozen or dead link). */
  freezeStatus(): void {
    this.#frozen = true;
  }

  runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    this.sent.push(command);
    const behaviour = this.#options.behaviour?.(command) ?? "reach";
    if (this.#closed) return Promise.resolve({ kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: "fake" }) });
    if (behaviour === "refuse") {
      this.#records.set(command.actionId, { actionId: command.actionId, state: "rejected", moved: false, detail: "refused by the fake arm" });
      return Promise.resolve({ kind: "refused", reason: "refused by the fake arm", error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: command.actionId, reason: "fake" }) });
    }
    if (behaviour !== "drop") this.#start(command, behaviour);
    return new Promise<MotionEnd>((resolve) => {
      const onAbort = (): void => {
        this.#waiters.get(command.actionId)?.delete(onEnd);
        resolve({ kind: "wait_ended" });
      };
      const onEnd = (record: ActionRecord): void => {
        signal.removeEventListener("abort", onAbort);
        resolve({ kind: "ended", record });
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      let set = this.#waiters.get(command.actionId);
      if (!set) this.#waiters.set(command.actionId, (set = new Set()));
      set.add(onEnd);
    });
  }

  async queryAction(actionId: string, options: { voidIfUnknown: boolean; signal: AbortSignal }): Promise<ActionRecord | undefined> {
    if (this.#options.answersQueries === false || this.#closed) return undefined;
    const known = this.#records.get(actionId);
    if (known) return known;
    if (options.voidIfUnknown && !this.#forgotten.has(actionId)) {
      const voided: ActionRecord = { actionId, state: "voided", moved: false };
      this.#records.set(actionId, voided);
      return voided;
    }
    return { actionId, state: "unknown", moved: undefined };
  }

  latestStatus(): ArmStatus | undefined {
    return this.#latest;
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    for (const m of [...this.#active.values()]) {
      if (options.axes && !Object.keys(m.command.targets).some((a) => options.axes?.includes(a))) continue;
      this.#freezeAt(m, Date.now());
      this.#end(m, "stopped", true);
    }
    this.#publish();
    return { halted: true, status: this.#latest };
  }

  /** Overlapping motions on one axis, from the ground truth. */
  overlaps(): number {
    let n = 0;
    for (let i = 0; i < this.effects.length; i++) {
      for (let j = i + 1; j < this.effects.length; j++) {
        const a = this.effects[i]!;
        const b = this.effects[j]!;
        if (!a.axes.some((x) => b.axes.includes(x))) continue;
        const aEnd = a.endedAt ?? Infinity;
        const bEnd = b.endedAt ?? Infinity;
        if (a.startedAt < bEnd && b.startedAt < aEnd) n++;
      }
    }
    return n;
  }

  readonly #forgotten = new Set<string>();

  #start(command: MotionCommand, behaviour: FakeBehaviour): void {
    if (this.#records.has(command.actionId)) return; // device-side idempotency
    const now = Date.now();
    const effect: FakeEffect = { actionId: command.actionId, axes: Object.keys(command.targets), startedAt: now, endedAt: undefined, outcome: undefined };
    this.effects.push(effect);
    const from: Record<string, number> = {};
    for (const axis of Object.keys(command.targets)) from[axis] = this.#positions[axis] ?? 0;
    const durationMs = this.#options.motionMs?.(command) ?? 50;
    const motion: Motion = { command, from, startedAt: now, durationMs, behaviour, effect, timer: undefined };
    this.#records.set(command.actionId, { actionId: command.actionId, state: "executing", moved: behaviour === "fault_no_motion" ? false : undefined });
    this.#active.set(command.actionId, motion);
    switch (behaviour) {
      case "fault_no_motion":
        motion.timer = setTimeout(() => this.#end(motion, "faulted", false), Math.min(5, durationMs));
        break;
      case "stall_midway":
        motion.timer = setTimeout(() => {
          this.#freezeAt(motion, now + durationMs / 2);
          this.#end(motion, "stalled", true);
        }, durationMs / 2);
        break;
      case "forget":
        motion.timer = setTimeout(() => {
          this.#freezeAt(motion, now + durationMs);
          effect.endedAt = Date.now();
          effect.outcome = "reached";
          this.#active.delete(command.actionId);
          this.#records.delete(command.actionId);
          this.#forgotten.add(command.actionId);
          this.#frozen = true;
        }, durationMs);
        break;
      case "reach":
      case "refuse":
      case "drop":
        motion.timer = setTimeout(() => {
          this.#freezeAt(motion, now + durationMs);
          this.#end(motion, "reached", true);
        }, durationMs);
        break;
    }
  }

  #freezeAt(m: Motion, at: number): void {
    const f = Math.min(1, Math.max(0, (at - m.startedAt) / m.durationMs));
    for (const [axis, target] of Object.entries(m.command.targets)) {
      const from = m.from[axis] ?? 0;
      this.#positions[axis] = from + (target - from) * f;
    }
  }

  #end(m: Motion, outcome: "reached" | "stalled" | "faulted" | "stopped", moved: boolean): void {
    clearTimeout(m.timer);
    if (!this.#active.delete(m.command.actionId)) return;
    m.effect.endedAt = Date.now();
    m.effect.outcome = outcome;
    const record: ActionRecord = { actionId: m.command.actionId, state: outcome, moved };
    this.#records.set(m.command.actionId, record);
    this.#publish();
    for (const w of this.#waiters.get(m.command.actionId) ?? []) w(record);
    this.#waiters.delete(m.command.actionId);
  }

  #publish(): void {
    if (this.#frozen || this.#closed) return;
    const now = Date.now();
    const axes: Record<string, { position: number; velocity: number; moving: boolean }> = {};
    const movingAxes = new Map<string, Motion>();
    for (const m of this.#active.values()) for (const a of Object.keys(m.command.targets)) movingAxes.set(a, m);
    for (const [name, pos] of Object.entries(this.#positions)) {
      const m = movingAxes.get(name);
      if (m && m.behaviour !== "fault_no_motion") {
        const f = Math.min(1, (now - m.startedAt) / m.durationMs);
        const from = m.from[name] ?? 0;
        const target = m.command.targets[name] ?? from;
        axes[name] = { position: from + (target - from) * f, velocity: (target - from) / (m.durationMs / 1000), moving: true };
      } else {
        axes[name] = { position: pos, velocity: 0, moving: false };
      }
    }
    const status: ArmStatus = { stampMs: now, axes, faults: [], actions: [...this.#records.values()].slice(-16) };
    this.#latest = status;
    for (const l of this.#listeners) l(status);
  }
}
