import type { ByteLink } from "../link/ByteLink.js";
import { BusReplies } from "./BusReplies.js";
import type { BusProtocol, StatusReply } from "../../protocol/bus/index.js";

export type BusPriority = "command" | "status";

interface Job {
  readonly priority: BusPriority;
  readonly run: () => Promise<void>;
}

/**
 * The half-duplex bus as a queue: one instruction on the wire at a time, its
 * replies collected before the next goes out. Commands (goal writes, halts)
 * jump ahead of status reads. Replies are matched to their instruction by
 * BusReplies (the set-up tools' BusExchange uses the same): one that cannot
 * be this instruction's is dropped, and a servo that did not answer in time
 * is given `quietAfterTimeoutMs` for its late reply before it is asked again,
 * so that reply cannot be taken for the next request's.
 */
export class BusChannel {
  readonly #link: ByteLink;
  readonly #replies: BusReplies;
  readonly #queue: Job[] = [];
  #busy = false;
  /** Wire bytes both ways, for rate figures. */
  bytesOut = 0;
  timeouts = 0;

  constructor(
    link: ByteLink,
    protocol: BusProtocol,
    readonly options: { readonly replyTimeoutMs: number; readonly quietAfterTimeoutMs: number },
  ) {
    this.#link = link;
    this.#replies = new BusReplies(link, protocol, { lateMs: options.quietAfterTimeoutMs });
  }

  get bytesIn(): number {
    return this.#replies.bytesIn;
  }

  /** Replies dropped because they could not answer the instruction on the wire (late, repeated, another id or length). */
  get staleReplies(): number {
    return this.#replies.stale;
  }

  dispose(): void {
    this.#replies.dispose();
  }

  /**
   * Sends `packet` and collects one status reply from each of `expect` (none for a
   * sync write or a broadcast). Replies whose data is not `length` bytes are dropped.
   */
  async exchange(
    packet: Uint8Array,
    expect: readonly number[],
    priority: BusPriority,
    length?: number,
  ): Promise<Map<number, StatusReply>> {
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

  #enqueue(
    packet: Uint8Array,
    expect: readonly number[],
    priority: BusPriority,
    length: number | undefined,
  ): Promise<{ replies: Map<number, StatusReply>; sent: boolean }> {
    return new Promise((resolve) => {
      const job: Job = {
        priority,
        run: async () => {
          if (!this.#link.isOpen) {
            resolve({ replies: new Map(), sent: false });
            return;
          }
          const send = (): void => {
            this.bytesOut += packet.length;
            this.#link.write(packet);
          };
          const r = await this.#replies.exchange(send, { ids: expect, length }, this.options.replyTimeoutMs);
          if (!r.complete && expect.length > 0) this.timeouts++;
          resolve({ replies: new Map(r.replies.map((x) => [x.id, x])), sent: true });
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
}
