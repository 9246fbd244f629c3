import type { ServoControlTable } from "../../protocol/bus/index.js";
import type { ServoState } from "./ServoState.js";

/**
 * The longest a servo that keeps answering may go without its health block
 * (torque enable, hardware error) being read. It bounds how late a power loss
 * that left no gap in the replies (torque off, no error, position readable) is
 * noticed: by the first cycle that starts this long after the last health
 * read, so within this plus two cycle times (≈ 25 ms at 1 Mbaud with 6
 * servos; at 115 200 baud a cycle is longer than this, so every cycle reads
 * it, as before). A servo's own boot after a power loss takes longer than a
 * 1 Mbaud cycle, so in practice the gap in its replies triggers the read first.
 */
export const HEALTH_PERIOD_MS = 20;

/**
 * Which status blocks a cycle reads. A table with a `healthBlock` (Dynamixel
 * X: 64..70, Torque_Enable..Hardware_Error_Status) has it read only when
 * needed; every other block is read every cycle. Needed means:
 * - a status packet's alert bit was set (the servo has a hardware error: the
 *   same cycle reads the block, so the fault is named within one cycle);
 * - a servo missed a reply (it may have power cycled while deaf);
 * - a motion is about to be judged ended (its verdict needs torque read after
 *   the sample it judges, so a power loss is never taken for a stall);
 * - HEALTH_PERIOD_MS passed since the last read.
 * Tables without one (Feetech STS: one block) read everything every cycle.
 */
export class StatusSchedule {
  readonly #table: ServoControlTable;
  readonly #now: () => number;
  readonly #periodMs: number;
  /** Index of the alert-gated block in statusBlocks; undefined = read every block every cycle. */
  readonly healthBlock: number | undefined;
  #lastHealthAt = -Infinity;
  #wanted = true;
  /** Status-loop reads of each block, for the bench's bytes-per-cycle figure. */
  readonly reads: number[];

  constructor(table: ServoControlTable, o: { readonly now: () => number; readonly periodMs?: number }) {
    this.#table = table;
    this.#now = o.now;
    this.#periodMs = o.periodMs ?? HEALTH_PERIOD_MS;
    this.healthBlock = table.healthBlock;
    this.reads = table.statusBlocks.map(() => 0);
  }

  /** Blocks read every cycle. */
  get everyCycle(): number[] {
    return this.#table.statusBlocks.map((_, i) => i).filter((i) => i !== this.healthBlock);
  }

  /** Whether this cycle reads the health block too. */
  healthDue(): boolean {
    if (this.healthBlock === undefined) return false;
    return this.#wanted || this.#now() - this.#lastHealthAt >= this.#periodMs;
  }

  /** Something in this cycle's replies calls for the health block (alert bit, missing reply, motion at rest). */
  want(): void {
    this.#wanted = true;
  }

  /** The health block was read, starting at `at`; `complete` = every servo answered it. */
  healthRead(at: number, complete: boolean): void {
    this.#lastHealthAt = at;
    this.#wanted = !complete;
  }

  /** When the servo's sample (the every-cycle blocks) was last complete. */
  sampleStamp(s: ServoState): number {
    let at = Infinity;
    for (const i of this.everyCycle) at = Math.min(at, s.blockStamps[i] ?? 0);
    return Number.isFinite(at) ? at : 0;
  }

  /** Whether the servo's torque and hardware error were read no earlier than its last sample. */
  healthFresh(s: ServoState): boolean {
    if (this.healthBlock === undefined) return true;
    return (s.blockStamps[this.healthBlock] ?? 0) >= this.sampleStamp(s);
  }
}
