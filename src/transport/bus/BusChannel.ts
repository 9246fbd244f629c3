import type { ByteLink } from "../link/ByteLink.js";
import {
  encodeRegister,
  type BusProtocol,
  type PacketDecoder,
  type Register,
  type RegisterBlock,
  type ServoControlTable,
  type StatusReply,
} from "../../protocol/bus/index.js";

export type BusPriority = "command" | "status";

/**
 * What can answer one instruction. A status packet carries no instruction
 * or address, only the servo id, its error byte and its data (Dynamixel
 * Protocol 2.0 status packet: header FF FF FD 00, ID, length, 0x55, error,
 * parameters, CRC — https://emanual.robotis.com/docs/en/dxl/protocol2,
 * "Status Packet"; Feetech STS/SCS answers in the Protocol 1.0 layout
 * FF FF, ID, length, error, parameters, ~sum checksum — Feetech's SCServo
 * SDK (SCS.cpp) and https://emanual.robotis.com/docs/en/dxl/protocol1).
 * Neither carries a sequence number. So a reply is matched by who sent it
 * and how many data bytes it has:
 * a read of N bytes is answered with N, a ping with the model and firmware
 * on Dynamixel 2.0 (3 bytes) and nothing on Feetech, a write with nothing.
 */
export interface ReplyShape {
  /** The ids that answer it; "any" for a broadcast ping. */
  readonly ids: readonly number[] | "any";
  /** Data bytes of each reply; undefined accepts any length. */
  readonly length: number | undefined;
  /**
   * Also accept a reply of another length whose error byte says the servo
   * refused the instruction (a Dynamixel 2.0 status error such as Access
   * Error sends no data: e-Manual, Protocol 2.0, Status Packet "Error"), so
   * a refusal is told apart from silence.
   */
  readonly refusalsAnyLength?: boolean;
  /** Keep a second reply from one id (the set-up tools' evidence of a shared id); otherwise it is dropped as stale. */
  readonly keepDuplicates?: boolean;
}

/** How one instruction is sent: its place in the queue, its own time to answer, and what ends the wait early. */
export interface ExchangeOptions {
  readonly priority?: BusPriority;
  /** Default: the channel's replyTimeoutMs. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal | undefined;
  /** End the wait when the link closes, and say so in `lost`. */
  readonly watchClose?: boolean;
}

export interface Answered {
  readonly replies: readonly StatusReply[];
  /** The first reply of each id. */
  readonly byId: ReadonlyMap<number, StatusReply>;
  /** Every expected id answered (always false for "any": it waits the whole time). */
  readonly complete: boolean;
  /**
   * Bytes thrown away as no packet while this instruction waited (noise,
   * collisions). A packet still arriving when the time ran out is not
   * counted: it may be a reply that is merely late, judged when it ends.
   */
  readonly garbledBytes: number;
  /** Set when the link closed while waiting (only with `watchClose`). */
  readonly lost: Error | undefined;
  /** False when the link was closed and the instruction never left. */
  readonly sent: boolean;
}

/** An instruction to one servo, whose expected reply may be widened (refusals of any length, duplicates kept). */
export type InstructionOptions = ExchangeOptions & { readonly expect?: Partial<ReplyShape> };

/** A control-table register by its name in the servo family's table (LeRobot's `data_name`). */
export type RegisterName = {
  [K in keyof ServoControlTable]-?: ServoControlTable[K] extends Register ? K : never;
}[keyof ServoControlTable];

/** A run of registers by its name in the table (the motion block), or a register's. */
export type BlockName = {
  [K in keyof ServoControlTable]-?: ServoControlTable[K] extends RegisterBlock ? K : never;
}[keyof ServoControlTable];

interface Waiting {
  readonly shape: ReplyShape;
  readonly ids: ReadonlySet<number> | undefined;
  readonly replies: StatusReply[];
  readonly answered: Set<number>;
  readonly done: () => void;
}

interface Job {
  readonly priority: BusPriority;
  readonly run: () => Promise<void>;
}

const NOTHING_SENT: Answered = {
  replies: [],
  byId: new Map(),
  complete: false,
  garbledBytes: 0,
  lost: undefined,
  sent: false,
};

/**
 * The one way onto a half-duplex servo bus, for the transport and the
 * set-up tools alike (as LeRobot's MotorsBus is): a queue that puts one
 * instruction on the wire at a time and collects its replies before the
 * next goes out, commands (goal writes, halts) ahead of status reads; and
 * read, write, sync read and sync write by register.
 *
 * One decoder lives as long as the link, so a reply cut into pieces is
 * whole whichever instruction its bytes straddle. A reply that cannot be
 * the waiting instruction's (another id, another length, or nothing
 * waiting) is dropped and counted in `staleReplies`.
 *
 * A reply can come later than its instruction's time (a loaded host, a
 * network hop, an adapter that holds bytes). Its servo then owes one, and
 * before the next instruction to that servo goes out the bus is drained
 * until the owed reply arrived or `lateMs` passed — otherwise the late
 * reply, of the same length as the next one's, would be read as its answer
 * and every later read of that servo would shift by one.
 */
export class BusChannel {
  readonly link: ByteLink;
  readonly protocol: BusProtocol;
  readonly #decoder: PacketDecoder;
  readonly #queue: Job[] = [];
  #busy = false;
  #waiting: Waiting | undefined;
  /** Servo id → when its late reply stops being waited for (performance.now()). */
  readonly #owed = new Map<number, number>();
  #wake: (() => void) | undefined;
  readonly #unsubscribe: () => void;
  /** Wire bytes both ways, for rate figures. */
  bytesOut = 0;
  bytesIn = 0;
  timeouts = 0;
  /** Replies dropped because they could not answer the instruction on the wire (late, repeated, another id or length). */
  staleReplies = 0;

  constructor(
    link: ByteLink,
    protocol: BusProtocol,
    readonly options: { readonly replyTimeoutMs: number; readonly lateMs: number },
  ) {
    this.link = link;
    this.protocol = protocol;
    this.#decoder = protocol.createDecoder();
    this.#unsubscribe = link.onData((chunk) => this.#onData(chunk));
  }

  /** Stops listening to the link (the link itself stays open). */
  dispose(): void {
    this.#unsubscribe();
  }

  ping(id: number, options: InstructionOptions = {}): Promise<Answered> {
    return this.exchange(this.protocol.ping(id), { ids: [id], length: undefined, ...options.expect }, options);
  }

  /** Reads `register` (a name in the control table, or any register block) of servo `id`. */
  read(id: number, register: BlockName | RegisterBlock, options: InstructionOptions = {}): Promise<Answered> {
    const { address, size } = this.#block(register);
    return this.exchange(
      this.protocol.read(id, address, size),
      { ids: [id], length: size, ...options.expect },
      options,
    );
  }

  /** Writes `value`, encoded as the register stores it, to servo `id` and waits for its status. */
  write(id: number, register: RegisterName | Register, value: number, options?: InstructionOptions): Promise<Answered>;
  /** Writes the raw bytes of a block of registers to servo `id` and waits for its status. */
  write(id: number, block: RegisterBlock, data: Uint8Array, options?: InstructionOptions): Promise<Answered>;
  write(
    id: number,
    register: BlockName | RegisterBlock,
    value: number | Uint8Array,
    options: InstructionOptions = {},
  ): Promise<Answered> {
    const reg = this.#block(register);
    const data = typeof value === "number" ? encodeRegister(reg as Register, value) : value;
    return this.exchange(
      this.protocol.write(id, reg.address, data),
      { ids: [id], length: 0, ...options.expect },
      options,
    );
  }

  /** One instruction reading `register` of every servo in `ids`, one reply each. */
  syncRead(
    ids: readonly number[],
    register: BlockName | RegisterBlock,
    options: ExchangeOptions = {},
  ): Promise<Answered> {
    const { address, size } = this.#block(register);
    return this.exchange(this.protocol.syncRead(address, size, ids), { ids, length: size }, options);
  }

  /**
   * One instruction writing `register` of every servo in `entries`; nobody
   * answers it. True once its bytes went to an open link, false when the
   * link was closed and nothing left — then positive evidence that the
   * servos never heard it.
   */
  async syncWrite(
    register: BlockName | RegisterBlock,
    entries: readonly { readonly id: number; readonly data: Uint8Array }[],
    priority: BusPriority = "command",
  ): Promise<boolean> {
    const { address, size } = this.#block(register);
    return (await this.exchange(this.protocol.syncWrite(address, size, entries), { ids: [], length: 0 }, { priority }))
      .sent;
  }

  /**
   * Sends `packet` once the instructions ahead of it are done and collects
   * what answers it (`shape`) within its time: until every expected id
   * answered, the time is up, `signal` aborts, or (with `watchClose`) the
   * link closes. Ids that did not answer owe a reply.
   */
  exchange(packet: Uint8Array, shape: ReplyShape, options: ExchangeOptions = {}): Promise<Answered> {
    const priority = options.priority ?? "command";
    return new Promise((resolve, reject) => {
      const job: Job = {
        priority,
        run: async () => {
          try {
            if (!this.link.isOpen) {
              resolve(NOTHING_SENT);
              return;
            }
            const answered = await this.#transact(packet, shape, options);
            if (!answered.complete && Array.isArray(shape.ids) && shape.ids.length > 0) this.timeouts++;
            resolve(answered);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        },
      };
      if (priority === "command") {
        const firstStatus = this.#queue.findIndex((j) => j.priority === "status");
        this.#queue.splice(firstStatus === -1 ? this.#queue.length : firstStatus, 0, job);
      } else {
        this.#queue.push(job);
      }
      void this.#pump();
    });
  }

  #block(register: BlockName | RegisterBlock): RegisterBlock {
    return typeof register === "string" ? this.protocol.table[register] : register;
  }

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (let job = this.#queue.shift(); job; job = this.#queue.shift()) await job.run();
    } finally {
      this.#busy = false;
    }
  }

  async #transact(packet: Uint8Array, shape: ReplyShape, options: ExchangeOptions): Promise<Answered> {
    const ids = shape.ids === "any" ? undefined : new Set(shape.ids);
    await this.#drain(ids);
    // Bytes already held (debris of an earlier collision) are the first thrown away: they are not this instruction's garbling.
    const discardedBefore = this.#decoder.discardedBytes + this.#decoder.bufferedBytes;
    const replies: StatusReply[] = [];
    let lost: Error | undefined;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const waiting: Waiting = { shape, ids, replies, answered: new Set(), done: finish };
    if (ids?.size === 0) finish();
    const timer = setTimeout(finish, options.timeoutMs ?? this.options.replyTimeoutMs);
    const offClose = options.watchClose
      ? this.link.onClose((error) => ((lost = error ?? new Error("closed")), finish()))
      : undefined;
    options.signal?.addEventListener("abort", finish, { once: true });
    this.#waiting = waiting;
    try {
      this.bytesOut += packet.length;
      this.link.write(packet);
      await finished;
    } finally {
      this.#waiting = undefined;
      clearTimeout(timer);
      offClose?.();
      options.signal?.removeEventListener("abort", finish);
    }
    const complete = ids !== undefined && [...ids].every((id) => waiting.answered.has(id));
    if (ids && !complete) {
      const until = performance.now() + this.options.lateMs;
      for (const id of ids) if (!waiting.answered.has(id)) this.#owed.set(id, until);
    }
    const garbledBytes = Math.max(0, this.#decoder.discardedBytes - discardedBefore);
    const byId = new Map<number, StatusReply>();
    for (const r of replies) if (!byId.has(r.id)) byId.set(r.id, r);
    return { replies, byId, complete, garbledBytes, lost, sent: true };
  }

  /**
   * Waits until none of `ids` (undefined: any servo) owes a reply: its late
   * reply arrived (and was dropped), or `lateMs` passed since its
   * instruction's time ran out. Servos that owe nothing cost no wait, so a
   * sweep of silent ids is not slowed.
   */
  async #drain(ids: ReadonlySet<number> | undefined): Promise<void> {
    for (;;) {
      let until = 0;
      for (const [id, deadline] of this.#owed) if (ids === undefined || ids.has(id)) until = Math.max(until, deadline);
      if (until === 0) return;
      if (await this.#nextDataOr(until - performance.now())) continue;
      const now = performance.now();
      for (const [id, deadline] of this.#owed)
        if (deadline <= now || ids === undefined || ids.has(id)) this.#owed.delete(id);
      return;
    }
  }

  /**
   * Resolves true on the next chunk from the link, false when `ms` passed
   * without one — even when `ms` already passed. Before saying false it lets
   * one turn of the event loop go by: after a stall, this timer and bytes
   * that arrived during it come due together, and the timer runs first
   * (timers phase) while the socket is read later (poll phase), or another
   * timer due in the same phase delivers them; an owed reply forgotten then
   * would be read as the next instruction's answer. setImmediate runs in the
   * check phase, after both.
   */
  #nextDataOr(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      let immediate: NodeJS.Immediate | undefined;
      const giveUp = (): void => {
        immediate = setImmediate(() => {
          this.#wake = undefined;
          resolve(false);
        });
      };
      const timer = ms > 0 ? setTimeout(giveUp, ms) : undefined;
      if (timer === undefined) giveUp();
      this.#wake = () => {
        clearTimeout(timer);
        clearImmediate(immediate);
        this.#wake = undefined;
        resolve(true);
      };
    });
  }

  #onData(chunk: Uint8Array): void {
    this.bytesIn += chunk.length;
    for (const packet of this.#decoder.push(chunk)) {
      const reply = this.protocol.statusOf(packet);
      if (reply) this.#take(reply);
    }
    this.#wake?.();
  }

  #take(reply: StatusReply): void {
    const waiting = this.#waiting;
    if (!waiting || !this.#fits(waiting, reply)) {
      this.staleReplies++;
      this.#owed.delete(reply.id);
      return;
    }
    waiting.replies.push(reply);
    waiting.answered.add(reply.id);
    if (waiting.ids && waiting.answered.size === waiting.ids.size) waiting.done();
  }

  #fits(waiting: Waiting, reply: StatusReply): boolean {
    if (waiting.ids && !waiting.ids.has(reply.id)) return false;
    const refused = waiting.shape.refusalsAnyLength === true && this.protocol.statusErrorNames(reply.error).length > 0;
    if (waiting.shape.length !== undefined && reply.data.length !== waiting.shape.length && !refused) return false;
    return !waiting.answered.has(reply.id) || waiting.shape.keepDuplicates === true;
  }
}
