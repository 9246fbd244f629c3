import { connect, type Socket } from "node:net";
import {
  FrameDecoder,
  encodeFrame,
  type DecodeResult,
  type Message,
  type MessageOf,
} from "../../src/protocol/serial/index.js";

type Waiter = {
  match: (m: Message) => boolean;
  resolve: (m: Message) => void;
  reject: (e: Error) => void;
  what: string;
};

/**
 * A bare-hands host for tests: raw bytes over TCP, the shared codec, no
 * transport logic, so what the simulator does is seen unfiltered. Every wait
 * has a guard deadline that fails the test with what was awaited (a guard,
 * not a timing assertion).
 */
export class RawHost {
  readonly received: Message[] = [];
  readonly failures: DecodeResult[] = [];
  private readonly decoder = new FrameDecoder();
  private waiters: Waiter[] = [];
  private nextSeq = 1;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      for (const r of this.decoder.push(chunk)) {
        if (!r.ok) {
          this.failures.push(r);
          continue;
        }
        this.received.push(r.message);
        for (const w of [...this.waiters]) {
          if (w.match(r.message)) {
            this.waiters = this.waiters.filter((x) => x !== w);
            w.resolve(r.message);
          }
        }
      }
    });
  }

  static async connect(link: string): Promise<RawHost> {
    const url = new URL(link);
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", reject);
    });
    return new RawHost(socket);
  }

  seq(): number {
    return this.nextSeq++;
  }

  /** Resolves when the other end closes the connection. */
  whenClosed(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
  }

  writeRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  send(message: Message): void {
    this.socket.write(encodeFrame(message));
  }

  /** Sends and resolves with the reply whose ackSeq names the frame. */
  async request(message: Message, guardMs = 5000): Promise<MessageOf<"HELLO" | "ACTION" | "ACK" | "NACK">> {
    const reply = this.waitFor(
      (m) => "ackSeq" in m && m.ackSeq === message.seq,
      `reply to ${message.op} seq ${message.seq}`,
      guardMs,
    );
    this.send(message);
    return (await reply) as MessageOf<"HELLO" | "ACTION" | "ACK" | "NACK">;
  }

  async status(match: (s: MessageOf<"STATUS">) => boolean, what: string, guardMs = 5000): Promise<MessageOf<"STATUS">> {
    return (await this.waitFor((m) => m.op === "STATUS" && match(m), what, guardMs)) as MessageOf<"STATUS">;
  }

  waitFor(match: (m: Message) => boolean, what: string, guardMs = 5000): Promise<Message> {
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`guard: no ${what} within ${guardMs} ms`));
      }, guardMs);
      const done = (m: Message): void => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push({ match, resolve: done, reject, what });
    });
  }

  async close(): Promise<void> {
    if (this.socket.destroyed) return;
    await new Promise<void>((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.destroy();
    });
  }
}
