import type { WireActionRecord } from "../src/protocol/serial/index.js";

/** What the device remembers of one action: its record, the detail it reports, the axes it names. */
export interface StoredAction {
  record: WireActionRecord;
  detail: string;
  readonly axes: readonly number[];
}

/**
 * The device's action memory since boot: the record of every action id it
 * has seen (the device-side half of "never move twice"), forgetting the
 * oldest finished ones beyond `memory`, and the ids whose records changed
 * last, which STATUS carries.
 */
export class ActionTable {
  readonly #actions = new Map<string, StoredAction>();
  /**
   * Action ids in the order their records last changed, oldest first, at most
   * `statusActionCount`: STATUS carries these (docs/serial-protocol.md §3.6),
   * so an action's terminal record appears however many newer actions were
   * created while it ran.
   */
  readonly #recentlyUpdated = new Set<string>();
  readonly #memory: number;
  readonly #statusActionCount: number;
  /** Whether an action still runs: a running action is never forgotten. */
  readonly #isActive: (actionId: string) => boolean;

  constructor(options: {
    readonly memory: number;
    readonly statusActionCount: number;
    readonly isActive: (actionId: string) => boolean;
  }) {
    this.#memory = options.memory;
    this.#statusActionCount = options.statusActionCount;
    this.#isActive = options.isActive;
  }

  get(actionId: string): StoredAction | undefined {
    return this.#actions.get(actionId);
  }

  remember(actionId: string, stored: StoredAction): void {
    this.#actions.set(actionId, stored);
    this.#touch(actionId);
    if (this.#actions.size <= this.#memory) return;
    for (const id of this.#actions.keys()) {
      if (this.#actions.size <= this.#memory) break;
      if (!this.#isActive(id)) this.#actions.delete(id);
    }
  }

  update(actionId: string, record: WireActionRecord, detail: string): void {
    const stored = this.#actions.get(actionId);
    if (!stored) return;
    stored.record = record;
    stored.detail = detail;
    this.#touch(actionId);
  }

  /** The most recently updated records (oldest update first), then any of `executing` not among them. */
  statusRecords(executing: Iterable<string>): WireActionRecord[] {
    const ids = new Set(this.#recentlyUpdated);
    for (const id of executing) ids.add(id);
    const out: WireActionRecord[] = [];
    for (const id of ids) {
      const stored = this.#actions.get(id);
      if (stored) out.push(stored.record);
    }
    return out;
  }

  /** A reboot: the device remembers nothing. */
  clear(): void {
    this.#actions.clear();
    this.#recentlyUpdated.clear();
  }

  /** Marks `actionId` as the most recently updated record. */
  #touch(actionId: string): void {
    this.#recentlyUpdated.delete(actionId);
    this.#recentlyUpdated.add(actionId);
    while (this.#recentlyUpdated.size > this.#statusActionCount) {
      const oldest = this.#recentlyUpdated.values().next();
      if (oldest.done) break;
      this.#recentlyUpdated.delete(oldest.value);
    }
  }
}
