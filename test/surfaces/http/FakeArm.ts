import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import { actuatorsOf } from "../../../src/config/actuators.js";
import { LinkStateTracker } from "../../../src/transport/link/LinkStateTracker.js";
import type { ActionRecord, ArmStatus, HaltResult, LinkState, MotionCommand, MotionEnd, Transport } from "../../../src/transport/Transport.js";

/** How the next motion ends: reaches its target, or stalls halfway (→ the executor says `unknown`). */
export type FakeEnding = "reach" | "stall_after_moving";

/**
 * A tiny in-memory arm for route tests: motions end at once, as told by
 * `nextEndings` (default: reach). Statuses are stamped "now" so they are
 * never stale. Not a simulator: firmware-sim is used for end-to-end tests.
 */
export class FakeArm implements Transport {
  readonly kind = "fake";
  readonly nextEndings: FakeEnding[] = [];
  readonly sent: MotionCommand[] = [];
  readonly #positions = new Map<string, number>();
  readonly #records = new Map<string, ActionRecord>();
  readonly #listeners = new Set<(s: ArmStatus) => void>();
  /** Tests move it by hand (`link.set("reconnecting", …)`) to play a lost link. */
  readonly link = new LinkStateTracker({ lastStatusAt: () => Date.now() });

  constructor(config: ArmConfig) {
    for (const a of actuatorsOf(config)) this.#positions.set(a.name, a.home);
  }

  async open(): Promise<void> {
    this.link.set("connected");
    this.#emit();
  }

  async close(): Promise<void> {
    this.link.set("down", { detail: "the transport is closed" });
    this.#listeners.clear();
  }

  linkState(): LinkState {
    return this.link.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.link.subscribe(listener);
  }

  async runMotion(command: MotionCommand): Promise<MotionEnd> {
    this.sent.push(command);
    const ending = this.nextEndings.shift() ?? "reach";
    for (const [axis, target] of Object.entries(command.targets)) {
      const from = this.#positions.get(axis) ?? 0;
      this.#positions.set(axis, ending === "reach" ? target : from + (target - from) / 2);
    }
    const record: ActionRecord =
      ending === "reach" ? { actionId: command.actionId, state: "reached", moved: true } : { actionId: command.actionId, state: "stalled", moved: true, detail: "blocked by an obstacle" };
    this.#records.set(command.actionId, record);
    this.#emit();
    return { kind: "ended", record };
  }

  async queryAction(actionId: string): Promise<ActionRecord | undefined> {
    return this.#records.get(actionId) ?? { actionId, state: "unknown", moved: undefined };
  }

  latestStatus(): ArmStatus {
    const axes: Record<string, { position: number; velocity: number; moving: boolean }> = {};
    for (const [name, position] of this.#positions) axes[name] = { position, velocity: 0, moving: false };
    return { stampMs: Date.now(), axes, faults: [], actions: [] };
  }

  onStatus(listener: (s: ArmStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async halt(): Promise<HaltResult> {
    return { halted: true, status: this.latestStatus() };
  }

  #emit(): void {
    const s = this.latestStatus();
    for (const l of this.#listeners) l(s);
  }
}
