import type { ByteLink } from "../link/ByteLink.js";
import type { BusProtocol, PacketDecoder, StatusReply } from "./protocol/index.js";

export type BusPriority = "command" | "status";

interface Job {
  readonly priority: BusPriority;
  readonly run: () => Promise<void>;
}

/**
 * The half-duplex bus as a queue: one instruction on the wire at a time, its
 * replies collected before the next goes out. Commands (goal writes, halts)
 * jump ahead of status reads. A reply arriving when nothing waits for it (a
 * late status packet) is dropped, and after a timeout the bus is left quiet
 * for a moment so a late reply cannot be taken for the next request's.
 */
export class BusChannel {
  readonly #link: ByteLink;
  readonly #protocol: BusProtocol;
  readonly #decoder: PacketDecoder;
  readonly #queue: Job[] = [];
  #busy = false;
  #waiting: { readonly ids: ReadonlySet<number>; readonly length: number | undefined; readonly got: Map<number, StatusReply>; done: () => void } | undefined;
  readonly #unsubscribe: () => void;
  /** Wire bytes both ways, for rate figures. */
  bytesOut = 0;
  bytesIn = 0;
  timeouts = 0;

  constructor(link: ByteLink, protocol: BusProtocol, readonly options: { readonly replyTimeoutMs: number; readonly quietAfterTimeoutMs: number }) {
    this.#link = link;
    this.#protocol = protocol;
    this.#decoder = protocol.createDecoder();
    this.#unsubscribe = link.onData((chunk) => this.#onData(chunk));
  }

  dispose(): void {
    this.#unsubscribe();
  }

  /**
   * Sends `packet` and collects one status reply from each of `expect` (none for a
   * sync write or a broadcast). Replies whose data is not `length` bytes are ignored.
   */
  async exchange(packet: Uint8Array, expect: readonly number[], priority: BusPriority, length?: number): Promise<Map<number, StatusReply>> {
    return (await this.#enqueue(packet, expect, priority, length)).replies;
  }

  /**
   * Sends a packet nobody answers (a sync write): true once its bytes went
   * to an open link, false when the link was closed and nothing left — then
   * positive evidence that the servos never heard it.
   */
  async send(packet: Uint8Array, priority: BusPriority): Promise<boolean> {
    return (await this.#enqueue(packet, [], priority, undefined)).sent;
  }

  #enqueue(packet: Uint8Array, expect: readonly number[], priority: BusPriority, length: number | undefined): Promise<{ replies: Map<number, StatusReply>; sent: boolean }> {
    return new Promise((resolve) => {
      const job: Job = {
        priority,
        run: async () => {
          const got = new Map<number, StatusReply>();
          if (!this.#link.isOpen) {
            resolve({ replies: got, sent: false });
            return;
          }
          const ids = new Set(expect);
          let timer: NodeJS.Timeout | undefined;
          const finished = new Promise<boolean>((done) => {
            if (ids.size === 0) {
              done(true);
              return;
            }
            this.#waiting = { ids, length, got, done: () => done(true) };
            timer = setTimeout(() => done(false), this.options.replyTimeoutMs);
          });
          this.bytesOut += packet.length;
          this.#link.write(packet);
          const complete = await finished;
          clearTimeout(timer);
          this.#waiting = undefined;
          if (!complete) {
            this.timeouts++;
            await new Promise((r) => setTimeout(r, this.options.quietAfterTimeoutMs));
          }
          resolve({ replies: got, sent: true });
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

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (let job = this.#queue.shift(); job; job = this.#queue.shift()) await job.run();
    } finally {
      this.#busy = false;
    }
  }

  #onData(chunk: Uint8Array): void {
    this.bytesIn += chunk.length;
    for (const packet of this.#decoder.push(chunk)) {
      const w = this.#waiting;
      const reply = this.#protocol.statusOf(packet);
      if (!w || !reply || !w.ids.has(reply.id) || w.got.has(reply.id)) continue;
      if (w.length !== undefined && reply.data.length !== w.length) continue;
      w.got.set(reply.id, reply);
      if (w.got.size === w.ids.size) w.done();
    }
  }
}
