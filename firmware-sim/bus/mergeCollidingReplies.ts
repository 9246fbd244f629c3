/**
 * What the host receives when several servos answer in the same slot (they
 * share an id): their status packets start together and drive the one data
 * line at once. The line idles high and a driven low wins (the common
 * wired-AND picture of a half-duplex TTL bus), so the host reads the bitwise
 * AND of the packets, the longer one's tail alone. Identical packets (two
 * servos of one model answering a ping) come through unharmed — as they can
 * on real hardware, which is why a scan also reads registers that differ
 * between servos, such as the present position.
 */
export function mergeCollidingReplies(packets: readonly Uint8Array[]): Uint8Array {
  const [first, ...rest] = packets;
  if (!first) return new Uint8Array(0);
  if (rest.length === 0) return first;
  const length = Math.max(...packets.map((p) => p.length));
  const out = new Uint8Array(length).fill(0xff);
  for (const p of packets) for (let i = 0; i < p.length; i++) out[i] = (out[i] ?? 0xff) & (p[i] ?? 0xff);
  return out;
}
