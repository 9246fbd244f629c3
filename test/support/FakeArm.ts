import { pino } from "pino";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../../src/config/actuators.js";
import { ArmbridgeError } from "../../src/errors.js";
import type { MotionTiming } from "../../src/motion/MotionTiming.js";
import { LinkLifecycle, type LinkReturn } from "../../src/transport/link/LinkLifecycle.js";
import { refuseUnsendable } from "../../src/transport/motionProblem.js";
import type {
  ActionRecord,
  ArmIdentity,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  MotionTimingSource,
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
 *
 * Its link goes through the same LinkLifecycle as every transport, so the
 * contract suite's link-loss cases run on it: `dropLink`, `powerLoss`,
 * `replaceWithOtherDevice`.
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
  /** What the arm says it is (ArmIdentity.arm); by default it cannot say. */
  readonly armName?: string;
  /** How long a motion takes; `from` is where its axes start. Default 50 ms. */
  readonly motionMs?: (command: MotionCommand, from: Readonly<Record<string, number>>) => number;
  readonly behaviour?: (command: MotionCommand) => FakeBehaviour;
  /** Answer queries (default true); false models a dead link. */
  readonly answersQueries?: boolean;
  /** Try to get a lost link back (default true). */
  readonly reconnect?: boolean;
  /** How it says it times motions (Transport.motionTiming); absent: it does not say. */
  readonly timing?: MotionTiming;
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
  readonly kind: string = "fake";
  readonly effects: FakeEffect[] = [];
  readonly sent: MotionCommand[] = [];
  readonly #records = new Map<string, ActionRecord>();
  readonly #positions: Record<string, number> = {};
  readonly #actuators: ReadonlyMap<string, Actuator>;
  readonly #active = new Map<string, Motion>();
  readonly #listeners = new Set<(s: ArmStatus) => void>();
  readonly #waiters = new Map<string, Set<(end: MotionEnd) => void>>();
  readonly #options: FakeArmOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  #statusTimer: NodeJS.Timeout | undefined;
  #latest: ArmStatus | undefined;
  /** The link, as every transport's: connected, reconnecting (attempt, next try), down. */
  readonly lifecycle: LinkLifecycle;
  /** False while the link is cut (dropLink, powerLoss): nothing reaches the arm, nothing comes back. */
  #reachable = true;
  /** Power losses so far: each one is a new incarnation with no memory of actions. */
  #incarnation = 0;
  #incarnationAtLoss = 0;
  /** Another device answers where this arm was (replaceWithOtherDevice). */
  #replaced = false;
  #effectsAtReplacement = 0;
  #frozen = false;
  #closed = false;

  constructor(config: ArmConfig, options: FakeArmOptions = {}) {
    this.#options = options;
    const actuators = actuatorsOf(config);
    this.#actuators = new Map(actuators.map((a) => [a.name, a]));
    for (const a of actuators) this.#positions[a.name] = a.home;
    this.lifecycle = new LinkLifecycle({
      describe: "the fake arm",
      logger: pino({ level: "silent" }),
      backoff: { initialMs: 50, maxMs: 400 },
      reconnect: options.reconnect,
      attemptTimeoutMs: 1000,
      lastStatusAt: () => this.#latest?.stampMs,
      incarnation: () => `fake:${this.#incarnation}`,
      inFlight: () => [...this.#active.keys()],
      attempt: async () => this.#tryReturn(),
    });
  }

  /** Only when the test gives one: a transport that does not say how it times motions is a case of its own. */
  readonly timing: MotionTimingSource = { motionTiming: () => this.#options.timing };

  readonly identity: ArmIdentity = { arm: () => this.#options.armName, incarnation: () => `fake:${this.#incarnation}` };

  async open(): Promise<void> {
    this.lifecycle.opened();
    this.#publish();
    this.#statusTimer = setInterval(() => this.#publish(), 1000 / (this.#options.statusHz ?? 100));
  }

  linkState(): LinkState {
    return this.lifecycle.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.lifecycle.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.lifecycle.close();
    clearInterval(this.#statusTimer);
    for (const t of this.#timers) clearTimeout(t);
    for (const m of this.#active.values()) clearTimeout(m.timer);
    this.#active.clear();
    this.#interruptWaits(new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }));
  }

  /** Stops the status stream (a frozen or dead link). */
  freezeStatus(): void {
    this.#frozen = true;
  }

  // ---- link faults (the contract suite's link-loss cases) ---------------------

  /** The link goes away for `ms`; the arm runs on, its motions finishing unseen. */
  async dropLink(ms: number): Promise<void> {
    this.#cut("link dropped (fake)");
    this.#after(ms, () => (this.#reachable = true));
  }

  /** The arm loses power for `ms`: its motions stop where they are, it forgets them, and is a new incarnation. */
  async powerLoss(ms: number): Promise<void> {
    this.#cut("the arm lost power (fake)");
    const now = Date.now();
    for (const m of [...this.#active.values()]) {
      this.#freezeAt(m, now);
      clearTimeout(m.timer);
      this.#active.delete(m.command.actionId);
      m.effect.endedAt = now;
      m.effect.outcome = "stopped";
    }
    this.#records.clear();
    this.#incarnation++;
    this.#after(ms, () => (this.#reachable = true));
  }

  /** Another device answers from now on: it is never driven. */
  async replaceWithOtherDevice(): Promise<void> {
    this.#cut("the link dropped and another device came on it (fake)");
    this.#replaced = true;
    this.#effectsAtReplacement = this.effects.length;
    this.#reachable = true;
  }

  /** Motions started since the replacement (must stay 0). */
  otherDeviceMotions(): number {
    return this.#replaced ? this.effects.length - this.#effectsAtReplacement : 0;
  }

  #cut(reason: string): void {
    this.#incarnationAtLoss = this.#incarnation;
    this.lifecycle.lost(reason);
    this.#reachable = false;
    this.#interruptWaits(new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: "fake", reason }));
  }

  async #tryReturn(): Promise<LinkReturn> {
    if (this.#replaced)
      throw new ArmbridgeError("ARMB_ERR_DEVICE_REPLACED", { link: "fake", detail: "another arm answered (fake)" });
    if (!this.#reachable) throw new Error("no answer (fake)");
    this.#publish();
    return this.#incarnation !== this.#incarnationAtLoss
      ? { incarnation: "new", detail: `the fake arm came back after a power loss (incarnation ${this.#incarnation})` }
      : { incarnation: "same", detail: "the fake arm came back" };
  }

  #after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  #interruptWaits(error: ArmbridgeError): void {
    const waits = [...this.#waiters.values()].flatMap((set) => [...set]);
    this.#waiters.clear();
    for (const w of waits) w({ kind: "link_error", error });
  }

  // ---- the Transport ----------------------------------------------------------

  runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    this.sent.push(command);
    if (this.#closed)
      return Promise.resolve({
        kind: "link_error",
        error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: "fake" }),
      });
    const unsendable = refuseUnsendable(command, (axis) => this.#actuators.get(axis), {
      transport: this.kind,
      link: this.linkState(),
    });
    if (unsendable) return Promise.resolve(unsendable);
    const behaviour = this.#options.behaviour?.(command) ?? "reach";
    if (behaviour === "refuse") {
      this.#records.set(command.actionId, {
        actionId: command.actionId,
        state: "rejected",
        moved: false,
        detail: "refused by the fake arm",
      });
      return Promise.resolve({
        kind: "refused",
        reason: "refused by the fake arm",
        error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: command.actionId, reason: "fake" }),
      });
    }
    if (behaviour !== "drop") this.#start(command, behaviour);
    return new Promise<MotionEnd>((resolve) => {
      const onAbort = (): void => {
        this.#waiters.get(command.actionId)?.delete(onEnd);
        resolve({ kind: "wait_ended" });
      };
      const onEnd = (end: MotionEnd): void => {
        signal.removeEventListener("abort", onAbort);
        resolve(end);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      let set = this.#waiters.get(command.actionId);
      if (!set) this.#waiters.set(command.actionId, (set = new Set()));
      set.add(onEnd);
    });
  }

  async queryAction(
    actionId: string,
    options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined> {
    if (this.#options.answersQueries === false || this.#closed || !this.#reachable || this.#replaced) return undefined;
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
    const link = this.linkState();
    if (this.#closed || link.state !== "connected") {
      return {
        halted: false,
        status: this.#latest,
        error: new ArmbridgeError("ARMB_ERR_LINK_DOWN", {
          transport: this.kind,
          state: link.state,
          detail: link.detail ?? "no answer",
        }),
      };
    }
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
    const effect: FakeEffect = {
      actionId: command.actionId,
      axes: Object.keys(command.targets),
      startedAt: now,
      endedAt: undefined,
      outcome: undefined,
    };
    this.effects.push(effect);
    const from: Record<string, number> = {};
    for (const axis of Object.keys(command.targets)) from[axis] = this.#positions[axis] ?? 0;
    const durationMs = this.#options.motionMs?.(command, from) ?? 50;
    const motion: Motion = { command, from, startedAt: now, durationMs, behaviour, effect, timer: undefined };
    this.#records.set(command.actionId, {
      actionId: command.actionId,
      state: "executing",
      moved: behaviour === "fault_no_motion" ? false : undefined,
    });
    this.#active.set(command.actionId, motion);
    switch (behaviour) {
      case "fault_no_motion":
        motion.timer = setTimeout(() => this.#end(motion, "faulted", false), Math.min(5, durationMs));
        break;
      case "stall_midway":
        motion.timer = setTimeout(() => {
          this.#freezeFraction(motion, 0.5);
          this.#end(motion, "stalled", true, "blocked by an obstacle half-way");
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
    this.#freezeFraction(m, m.durationMs <= 0 ? 1 : Math.min(1, Math.max(0, (at - m.startedAt) / m.durationMs)));
  }

  #freezeFraction(m: Motion, f: number): void {
    for (const [axis, target] of Object.entries(m.command.targets)) {
      const from = m.from[axis] ?? 0;
      this.#positions[axis] = from + (target - from) * f;
    }
  }

  #end(m: Motion, outcome: "reached" | "stalled" | "faulted" | "stopped", moved: boolean, detail?: string): void {
    clearTimeout(m.timer);
    if (!this.#active.delete(m.command.actionId)) return;
    m.effect.endedAt = Date.now();
    m.effect.outcome = outcome;
    const record: ActionRecord = {
      actionId: m.command.actionId,
      state: outcome,
      moved,
      ...(detail === undefined ? {} : { detail }),
    };
    this.#records.set(m.command.actionId, record);
    this.#publish();
    // Ended while nobody could hear: the record waits to be asked for.
    if (!this.#reachable) return;
    for (const w of this.#waiters.get(m.command.actionId) ?? []) w({ kind: "ended", record });
    this.#waiters.delete(m.command.actionId);
  }

  #publish(): void {
    if (this.#frozen || this.#closed || !this.#reachable || this.#replaced) return;
    const now = Date.now();
    const axes: Record<string, { position: number; velocity: number; moving: boolean }> = {};
    const movingAxes = new Map<string, Motion>();
    for (const m of this.#active.values()) for (const a of Object.keys(m.command.targets)) movingAxes.set(a, m);
    for (const [name, pos] of Object.entries(this.#positions)) {
      const m = movingAxes.get(name);
      if (m && m.behaviour !== "fault_no_motion" && m.durationMs > 0) {
        const f = Math.min(1, (now - m.startedAt) / m.durationMs);
        const from = m.from[name] ?? 0;
        const target = m.command.targets[name] ?? from;
        axes[name] = {
          position: from + (target - from) * f,
          velocity: (target - from) / (m.durationMs / 1000),
          moving: true,
        };
      } else {
        axes[name] = { position: pos, velocity: 0, moving: false };
      }
    }
    const status: ArmStatus = { stampMs: now, axes, faults: [], actions: [...this.#records.values()].slice(-16) };
    this.#latest = status;
    for (const l of this.#listeners) l(status);
  }
}
