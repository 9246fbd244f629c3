import { closeSync, openSync, writeSync } from "node:fs";

export type Outcome = "reached" | "stopped" | "stalled" | "faulted";

/**
 * Ground truth: one JSON line per physical event, from the simulator's own
 * view. Tests and benchmarks judge the bridge by this file, so its shape is a
 * contract (docs/serial-protocol.md, "Effects log"): `event`, `action_id`,
 * `joints` (axis names), `from` / `to` (name → position), `outcome` on
 * motion_end, `t` in epoch ms.
 */
export type EffectEvent =
  | {
      readonly event: "motion_start";
      readonly action_id: string;
      readonly joints: readonly string[];
      readonly from: Readonly<Record<string, number>>;
      readonly to: Readonly<Record<string, number>>;
      readonly boot_id: number;
    }
  | {
      readonly event: "motion_end";
      readonly action_id: string;
      readonly joints: readonly string[];
      readonly from: Readonly<Record<string, number>>;
      /** Where the axes actually came to rest, not the target. */
      readonly to: Readonly<Record<string, number>>;
      readonly outcome: Outcome;
      readonly detail: string;
      readonly boot_id: number;
    }
  /** On a servo bus (no action ids): `motion` pairs a start with its end. */
  | {
      readonly event: "motion_start";
      readonly action_id: null;
      readonly motion: string;
      readonly joints: readonly string[];
      readonly from: Readonly<Record<string, number>>;
      readonly to: Readonly<Record<string, number>>;
    }
  | {
      readonly event: "motion_end";
      readonly action_id: null;
      readonly motion: string;
      readonly joints: readonly string[];
      readonly from: Readonly<Record<string, number>>;
      readonly to: Readonly<Record<string, number>>;
      readonly outcome: Outcome;
      readonly detail: string;
    }
  | {
      readonly event: "duplicate_refused";
      readonly action_id: string;
      readonly joints: readonly string[];
      /** The state of the action the id already names. */
      readonly existing_state: string;
      readonly boot_id: number;
    }
  | {
      readonly event: "voided";
      readonly action_id: string;
      readonly joints: readonly string[];
      readonly boot_id: number;
    }
  /** Someone turned a torque-off servo by hand (bus simulator): no command moved it. */
  | {
      readonly event: "moved_by_hand";
      readonly action_id: null;
      readonly joints: readonly string[];
      readonly from: Readonly<Record<string, number>>;
      readonly to: Readonly<Record<string, number>>;
    }
  | {
      readonly event: "reboot";
      readonly action_id: null;
      readonly joints: readonly string[];
      /** Actions whose motion the reboot cut short. */
      readonly interrupted: readonly string[];
      readonly old_boot_id: number;
      readonly boot_id: number;
    };

export interface EffectsSink {
  append(event: EffectEvent): void;
}

/** Appends events to a JSONL file synchronously, so a line is on disk before the frame that caused it is answered. */
export class EffectsLog implements EffectsSink {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly wallClock: () => number = Date.now,
  ) {
    this.fd = openSync(path, "a");
  }

  append(event: EffectEvent): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, JSON.stringify({ ...event, t: this.wallClock() }) + "\n");
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Keeps events in memory (tests, or no --effects-log). */
export class MemoryEffects implements EffectsSink {
  readonly events: (EffectEvent & { t: number })[] = [];
  append(event: EffectEvent): void {
    this.events.push({ ...event, t: Date.now() });
  }
}
