import { afterEach, describe, expect, it } from "vitest";
import { BusChannel } from "../../src/transport/bus/BusChannel.js";
import type { ByteLink } from "../../src/transport/link/ByteLink.js";
import { protocolNamed, type BusProtocol, type RegisterBlock } from "../../src/protocol/bus/index.js";

/**
 * A servo's late reply and a stalled event loop. The channel waits for an
 * owed reply before the next instruction to that servo; when the loop
 * stalls, the wait's deadline and the bytes that already arrived come due
 * together, and whichever runs first decides whether the late reply is
 * taken as the next instruction's answer. Timers stand in for the wire so
 * the order is the one a stalled loop produces, every run.
 */

const REPLY_TIMEOUT_MS = 20;
const LATE_MS = 30;
/** Two registers of one length, so the late reply of one fits the next read of the other. */
const A: RegisterBlock = { address: 10, size: 2 };
const B: RegisterBlock = { address: 20, size: 2 };
const VALUE_A = Uint8Array.of(0x8c, 0x00);
const VALUE_B = Uint8Array.of(0x23, 0x00);

/** A link whose device end is the test: it sees each instruction and delivers bytes when told. */
class ScriptedLink implements ByteLink {
  readonly url = "scripted://bus";
  readonly isOpen = true;
  readonly #data = new Set<(chunk: Uint8Array) => void>();
  onInstruction: (bytes: Uint8Array) => void = () => undefined;

  async open(): Promise<void> {}
  async close(): Promise<void> {}
  write(bytes: Uint8Array): void {
    this.onInstruction(bytes);
  }
  onData(listener: (chunk: Uint8Array) => void): () => void {
    this.#data.add(listener);
    return () => this.#data.delete(listener);
  }
  onClose(): () => void {
    return () => undefined;
  }
  deliver(bytes: Uint8Array): void {
    for (const listener of [...this.#data]) listener(bytes);
  }
}

/** Holds the thread as a host too loaded to run the loop does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

let channels: BusChannel[] = [];
afterEach(() => {
  for (const channel of channels) channel.dispose();
  channels = [];
});

/**
 * Servo 1 answers nothing to a read of A in time; B's instruction answers
 * with B's value soon after it is sent. Returns the channel and the read of
 * A, done (its time ran out, so servo 1 owes a reply).
 */
async function owingServo(protocol: BusProtocol): Promise<{ channel: BusChannel; link: ScriptedLink }> {
  const link = new ScriptedLink();
  const channel = new BusChannel(link, protocol, { replyTimeoutMs: REPLY_TIMEOUT_MS, lateMs: LATE_MS });
  channels.push(channel);
  const readB = protocol.read(1, B.address, B.size);
  link.onInstruction = (bytes) => {
    if (Buffer.from(bytes).equals(readB)) setTimeout(() => link.deliver(protocol.status(1, 0, VALUE_B)), 2);
  };
  const readA = await channel.read(1, A);
  expect(readA.complete).toBe(false);
  return { channel, link };
}

describe.each(["dynamixel_2", "feetech_sts"] as const)("a %s servo's late reply after the loop stalled", (name) => {
  const protocol = protocolNamed(name);

  it("is not taken as the next read's answer when it arrives just after the wait for it ended", async () => {
    const { channel, link } = await owingServo(protocol);
    const readB = channel.read(1, B);
    // Let the queue reach the wait for servo 1's owed reply, then deliver that reply just after the
    // wait's deadline and stall past both: both timers are due in the same turn, the wait's first.
    await new Promise((resolve) => setImmediate(resolve));
    setTimeout(() => link.deliver(protocol.status(1, 0, VALUE_A)), LATE_MS + 10);
    setTimeout(() => stall(LATE_MS * 3), 1);
    const answered = await readB;
    expect(answered.complete).toBe(true);
    expect([...answered.byId.get(1)!.data]).toEqual([...VALUE_B]);
    expect(channel.staleReplies).toBe(1);
  });

  it("is not taken as the next read's answer when the stall outlasted the wait before the read was asked", async () => {
    const { channel, link } = await owingServo(protocol);
    // The read is asked in the same turn as the late reply is delivered, after the wait's time ran out.
    let readB: Promise<Awaited<ReturnType<BusChannel["read"]>>> | undefined;
    const asked = new Promise<void>((resolve) =>
      setTimeout(() => {
        readB = channel.read(1, B);
        resolve();
      }, LATE_MS + 5),
    );
    setTimeout(() => link.deliver(protocol.status(1, 0, VALUE_A)), LATE_MS + 10);
    setTimeout(() => stall(LATE_MS * 3), 1);
    await asked;
    const answered = await readB!;
    expect(answered.complete).toBe(true);
    expect([...answered.byId.get(1)!.data]).toEqual([...VALUE_B]);
    expect(channel.staleReplies).toBe(1);
  });
});
