import type { BusChannel } from "./BusChannel.js";
import type { BusServos } from "./BusServos.js";
import type { BusProtocol, RegisterBlock, StatusReply } from "../../protocol/bus/index.js";
import type { ServoState } from "./ServoState.js";
import type { StatusSchedule } from "./StatusSchedule.js";

export interface BusStatusLoopDeps {
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly servos: BusServos;
  readonly schedule: StatusSchedule;
  readonly now: () => number;
  /** Some running motion's servos all read still (its verdict needs fresh torque readings). */
  readonly motionAtRest: () => boolean;
  /** After each completed cycle, while the next one is on the wire. */
  readonly onCycle: () => void;
  /** How often the servos' temperature, voltage (and, every LIMITS_EVERY-th time, their own limits) are read. Default CONDITION_PERIOD_MS. */
  readonly conditionPeriodMs?: number;
}

/**
 * Temperature and supply change over seconds, not cycles: a read of them a
 * few times a second costs one short sync read (≈ 60 bytes for six servos)
 * instead of a longer block every cycle. A supply that collapses sets the
 * servo's input-voltage bit, which the every-cycle reads see at once.
 */
export const CONDITION_PERIOD_MS = 250;
/** The servos' own limits live in EEPROM: re-read every this many condition reads (≈ 5 s), in case a tool changed them. */
const LIMITS_EVERY = 20;

/**
 * The status reads of a bus, back to back: one request on the wire at a
 * time, the next sent as soon as the last reply of this one is in, and this
 * cycle judged and published while it travels — the host's work hides
 * inside the wire time instead of adding to every cycle.
 */
export class BusStatusLoop {
  readonly #deps: BusStatusLoopDeps;
  #loop: Promise<void> | undefined;
  #running = false;
  /** Cycles completed, for rate figures. */
  cycles = 0;
  #conditionAt = -Infinity;
  #conditionReads = 0;
  /** Condition sync reads so far, present block and limits block (bench: the wire bytes they add to the cycles). */
  readonly conditionBlockReads = { present: 0, limits: 0 };

  constructor(deps: BusStatusLoopDeps) {
    this.#deps = deps;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Epoch ms the loop last started: silence is counted from here, not across a time nothing was read. */
  startedAt = 0;

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.startedAt = this.#deps.now();
    this.#loop = this.#run();
  }

  /** Ends the loop after the read on the wire; resolves once it has. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  async #run(): Promise<void> {
    let reading = this.#readCycle();
    while (this.#running) {
      await reading;
      if (!this.#running) break;
      this.cycles++;
      reading = this.#readCycle();
      this.#deps.onCycle();
      // Yield to I/O and timers (the bus is busy with the next read meanwhile).
      await new Promise((r) => setImmediate(r));
    }
    await reading;
  }

  /** Every status block of every servo (opening, a return, re-arming, recovery, a motion's read-back). */
  async readAll(): Promise<void> {
    for (const b of this.#deps.protocol.table.statusBlocks.keys()) await this.readBlock(b);
  }

  /**
   * One cycle: the every-cycle blocks, then the health block when the
   * schedule says so — in the same cycle when a reply's alert bit is set, a
   * servo missed a reply or a motion's servos have come to rest.
   */
  async #readCycle(): Promise<void> {
    const { schedule, servos, protocol } = this.#deps;
    const health = schedule.healthBlock;
    for (const b of schedule.everyCycle) {
      const { replies } = await this.readBlock(b);
      schedule.reads[b] = (schedule.reads[b] ?? 0) + 1;
      if (health === undefined) continue;
      if (replies.size < servos.list.length) schedule.want();
      for (const r of replies.values()) if (protocol.hardwareAlert(r.error)) schedule.want();
      if (this.#deps.motionAtRest()) schedule.want();
    }
    if (health !== undefined && schedule.healthDue()) {
      const { replies, at } = await this.readBlock(health);
      schedule.reads[health] = (schedule.reads[health] ?? 0) + 1;
      schedule.healthRead(at, replies.size === servos.list.length);
    }
    if (this.#deps.now() - this.#conditionAt >= (this.#deps.conditionPeriodMs ?? CONDITION_PERIOD_MS))
      await this.readCondition();
  }

  /**
   * The servos' condition registers (ServoConditionTable): present
   * temperature and voltage where the status blocks do not hold them, and
   * their own limits on the first read, once a servo that missed it answers, and every
   * LIMITS_EVERY-th read. For the operator only: nothing about motion waits on these.
   */
  async readCondition(): Promise<void> {
    const { protocol, servos } = this.#deps;
    const condition = protocol.table.condition;
    this.#conditionAt = this.#deps.now();
    // A servo that answers but has no limits read yet (it was silent at the last one) is read again now, not in 5 s.
    const limitsDue =
      this.#conditionReads++ % LIMITS_EVERY === 0 || servos.list.some((s) => s.limitsAt === 0 && s.missedReads === 0);
    if (condition.presentBlock) {
      this.conditionBlockReads.present++;
      const replies = await this.#syncRead(condition.presentBlock);
      for (const [s, at] of replies) s.conditionAt = at;
    }
    if (limitsDue) {
      this.conditionBlockReads.limits++;
      const replies = await this.#syncRead(condition.limitsBlock);
      for (const [s, at] of replies) s.limitsAt = at;
    }
  }

  /** A sync read of a block outside the status blocks into each servo's register copy; returns who answered, and when. */
  async #syncRead(block: RegisterBlock): Promise<Map<ServoState, number>> {
    const { channel, servos } = this.#deps;
    const ids = servos.ids;
    const { byId: replies } = await channel.syncRead(ids, block, { priority: "status" });
    const at = this.#deps.now();
    const answered = new Map<ServoState, number>();
    for (const s of servos.list) {
      const r = replies.get(s.axis.id);
      if (!r || r.data.length !== block.size) continue;
      s.memory.set(r.data, block.address);
      answered.set(s, at);
    }
    return answered;
  }

  async readBlock(b: number): Promise<{ replies: ReadonlyMap<number, StatusReply>; at: number }> {
    const { protocol, channel, servos, schedule } = this.#deps;
    const ids = servos.ids;
    const block = protocol.table.statusBlocks[b]!;
    const sentAt = this.#deps.now();
    const { byId: replies } = await channel.syncRead(ids, block, { priority: "status" });
    const at = this.#deps.now();
    for (const s of servos.list) {
      const r = replies.get(s.axis.id);
      s.missedReads = r ? 0 : s.missedReads + 1;
      if (!r) continue;
      s.memory.set(r.data, block.address);
      s.blockStamps[b] = at;
      s.stampMs = schedule.sampleStamp(s);
    }
    return { replies, at: sentAt };
  }
}
