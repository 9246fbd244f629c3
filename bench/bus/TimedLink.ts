import type { ByteLink } from "../../src/transport/link/ByteLink.js";

/**
 * A ByteLink that notes when each request leaves and when the first bytes of
 * its answer arrive, to split a status-loop cycle into the host's own time
 * (last answer in → next request out) and the round trip (out → answer in:
 * the wire time plus the simulator's and the OS's share).
 */
export class TimedLink implements ByteLink {
  readonly hostGapsMs: number[] = [];
  readonly roundTripsMs: number[] = [];
  /** When each request left (performance.now()). */
  readonly writesAt: number[] = [];
  /** Each request's bytes, beside writesAt (to tell which status block it reads). */
  readonly writes: Uint8Array[] = [];
  readonly #inner: ByteLink;
  #sentAt = 0;
  #lastInAt = 0;

  constructor(inner: ByteLink) {
    this.#inner = inner;
  }

  get url(): string {
    return this.#inner.url;
  }

  get isOpen(): boolean {
    return this.#inner.isOpen;
  }

  open(signal?: AbortSignal): Promise<void> {
    return this.#inner.open(signal);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  write(bytes: Uint8Array): void {
    const now = performance.now();
    if (this.#lastInAt > 0 && this.#sentAt === 0) this.hostGapsMs.push(now - this.#lastInAt);
    this.#sentAt = now;
    this.writesAt.push(now);
    this.writes.push(bytes.slice());
    this.#inner.write(bytes);
  }

  onData(listener: (chunk: Uint8Array) => void): () => void {
    return this.#inner.onData((chunk) => {
      const now = performance.now();
      if (this.#sentAt > 0) this.roundTripsMs.push(now - this.#sentAt);
      this.#sentAt = 0;
      this.#lastInAt = now;
      listener(chunk);
    });
  }

  onClose(listener: (error: Error | undefined) => void): () => void {
    return this.#inner.onClose(listener);
  }

  reset(): void {
    this.hostGapsMs.length = 0;
    this.roundTripsMs.length = 0;
    this.writesAt.length = 0;
    this.writes.length = 0;
  }

  /** Durations of status cycles (ms) between consecutive requests that start one (cycles of varying request counts). */
  cyclesMsStartingWith(isCycleStart: (request: Uint8Array) => boolean): number[] {
    const starts = this.writesAt.filter((_, i) => isCycleStart(this.writes[i] ?? new Uint8Array(0)));
    return starts.slice(1).map((at, i) => at - (starts[i] ?? at));
  }

  /** Durations of status cycles of `requestsPerCycle` requests each (ms), from the requests' departures. */
  cyclesMs(requestsPerCycle: number): number[] {
    const out: number[] = [];
    for (let i = requestsPerCycle; i < this.writesAt.length; i += requestsPerCycle)
      out.push((this.writesAt[i] ?? 0) - (this.writesAt[i - requestsPerCycle] ?? 0));
    return out;
  }
}
