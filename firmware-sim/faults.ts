import { randomInt } from "node:crypto";
import { mulberry32 } from "../src/random/mulberry32.js";

/** Probabilities (0..1) of each seeded fault; all 0 means a perfect device and wire. */
export interface FaultRates {
  /** Genuine failure of a new MOVE: refused (NACK FAULTED) or faulted at start; nothing moves either way. */
  readonly failRate: number;
  /** Each frame, in either direction, is lost. */
  readonly dropRate: number;
  /** Each frame, in either direction, gets one bit flipped. */
  readonly corruptRate: number;
  /** An accepted MOVE freezes the STATUS stream for a while. */
  readonly freezeRate: number;
  /** An accepted MOVE stalls one of its axes part-way. */
  readonly stallRate: number;
  /** An accepted MOVE ends in a device reboot part-way (action memory lost). */
  readonly rebootRate: number;
  /**
   * Each reply to a host frame leaves late (DeviceSession's `lateReplyMs`),
   * after the host's ACK timeout: the request arrived and was acted on, so
   * the host's re-send is a copy the device must answer without acting again.
   */
  readonly lateReplyRate?: number | undefined;
}

export const NO_FAULTS: FaultRates = {
  failRate: 0,
  dropRate: 0,
  corruptRate: 0,
  freezeRate: 0,
  stallRate: 0,
  rebootRate: 0,
};

export type GenuineFailure = "refused" | "faulted_at_start";

export type Direction = "to_device" | "to_host";

/**
 * Every random decision the simulator makes, drawn from independent seeded
 * streams: the wire's losses do not shift which motions fail, so one seed
 * reproduces the same device behaviour (failures, motion times, stalls,
 * reboots) however the link timing falls. Boot ids are not seeded (see
 * `nextBootId`). Each call draws a fixed number of
 * values whatever the outcome, for the same reason.
 *
 * The wire stream is the exception: every frame draws from it, including the
 * clock-driven STATUS frames and host heartbeats, so *which* frames a seed
 * drops or corrupts shifts with timing from run to run. Tests that need a
 * wire fault to have happened check the counters, not the seed.
 */
export class FaultPlan {
  private readonly wire: () => number;
  private readonly failure: () => number;
  private readonly motion: () => number;
  private readonly timing: () => number;
  private readonly lateness: () => number;

  constructor(
    readonly seed: number,
    readonly rates: FaultRates = NO_FAULTS,
  ) {
    const stream = (k: number): (() => number) => mulberry32((seed ^ Math.imul(k, 0x9e3779b9)) >>> 0);
    this.wire = stream(1);
    this.failure = stream(2);
    this.motion = stream(3);
    // stream(4) drew boot ids once; they come from the OS now (nextBootId), and the other streams keep their numbers.
    this.timing = stream(5);
    // A stream of its own: late replies do not shift any other draw of a seed.
    this.lateness = stream(6);
  }

  /** The frame to deliver instead of `frame` (delimiter included): undefined to drop it, a copy with one flipped bit to corrupt it. */
  onWire(frame: Uint8Array, _direction: Direction): Uint8Array | undefined {
    const drop = this.wire() < this.rates.dropRate;
    const corrupt = this.wire() < this.rates.corruptRate;
    const where = this.wire();
    const bit = Math.floor(this.wire() * 8);
    if (drop) return undefined;
    if (!corrupt || frame.length < 2) return frame;
    // Never the delimiter: a damaged frame still ends where it did, as on a real UART.
    const copy = Uint8Array.from(frame);
    const index = Math.floor(where * (copy.length - 1));
    copy[index] = (copy[index] ?? 0) ^ (1 << bit);
    return copy;
  }

  /** Per reply (STATUS excluded): whether it leaves late. */
  lateReply(): boolean {
    return this.lateness() < (this.rates.lateReplyRate ?? 0);
  }

  genuineFailure(): GenuineFailure | undefined {
    const fails = this.failure() < this.rates.failRate;
    const kind = this.failure() < 0.5 ? "refused" : "faulted_at_start";
    return fails ? kind : undefined;
  }

  /** Per accepted motion: which of the seeded mid-motion faults strike, and when (fraction of the motion). */
  midMotion(): { stall?: { fraction: number; pick: number }; reboot?: { fraction: number }; freezeMs?: number } {
    const stall = this.motion() < this.rates.stallRate;
    const stallFraction = 0.2 + 0.6 * this.motion();
    const pick = this.motion();
    const reboot = this.motion() < this.rates.rebootRate;
    const rebootFraction = 0.2 + 0.6 * this.motion();
    const freeze = this.motion() < this.rates.freezeRate;
    const freezeMs = 200 + Math.floor(600 * this.motion());
    return {
      ...(stall ? { stall: { fraction: stallFraction, pick } } : {}),
      ...(reboot && !stall ? { reboot: { fraction: rebootFraction } } : {}),
      ...(freeze ? { freezeMs } : {}),
    };
  }

  /**
   * A new boot id: u32, never 0 (0 reads as "no boot seen" to a host), and
   * never `previous`. Drawn from the OS's randomness, not from the seed: the
   * protocol's rule is that it changes on every boot, and two simulator
   * processes started with one seed are two boots (a restarted simulator, or
   * a second arm). A seeded id would let a host take the new boot for the old
   * one and void, as "never heard of", a motion the old boot ran.
   */
  nextBootId(previous?: number): number {
    for (;;) {
      const id = randomInt(1, 0x1_0000_0000);
      if (id !== previous) return id;
    }
  }

  /** One draw of a standard normal (Box–Muller), for log-normal motion times. */
  normal(): number {
    const u = 1 - this.timing();
    const v = this.timing();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
