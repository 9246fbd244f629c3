import type { Logger } from "pino";
import { ArmbridgeError } from "../../src/errors.js";
import type { BusProtocol } from "../../src/protocol/bus/index.js";
import type { EffectsSink } from "../EffectsLog.js";
import type { BusTimers } from "./BusTimers.js";
import { servoProtection } from "./servoProtection.js";
import type { ServoMotions } from "./ServoMotions.js";
import type { SimServo } from "./SimServo.js";

/** How long a simulated overload at start keeps a Feetech servo's Status bit set (the load goes away). */
const OVERLOAD_CLEARS_MS = 200;
/** How fast a servo on --heat-joint warms while it holds torque (°C/s), and how often that is applied. */
const HEAT_RATE_C_PER_S = 1;
const HEAT_TICK_MS = 1000;
/** How long a servo that lost power stays deaf, unless told otherwise. */
const DEFAULT_BOOT_MS = 50;

/** The servos by the id the config gave their axis (the first, where a layout repeats one). */
export function servosById(all: readonly SimServo[]): ReadonlyMap<number, SimServo> {
  const byId = new Map<number, SimServo>();
  for (const s of all) if (!byId.has(s.axis.id)) byId.set(s.axis.id, s);
  return byId;
}

export interface ServoConditionsOptions {
  readonly protocol: BusProtocol;
  readonly effects: EffectsSink;
  readonly logger: Logger;
  readonly all: readonly SimServo[];
  readonly timers: BusTimers;
  readonly motions: ServoMotions;
  /** A servo that lost power is deaf this long. */
  readonly bootMs: number | undefined;
}

/**
 * What a servo's sensors read (temperature, supply) and what its own
 * protections do about it, and the power it runs on: a trip, a servo's
 * power cycle, the whole bus's supply dropping.
 */
export class ServoConditions {
  readonly #options: ServoConditionsOptions;

  constructor(options: ServoConditionsOptions) {
    this.#options = options;
  }

  /** Warms these servos while they hold torque, once a second, until they trip (--heat-joint). */
  heat(servos: readonly SimServo[]): void {
    this.#options.timers.after(HEAT_TICK_MS, () => {
      for (const s of servos)
        if (s.torque) this.set(s.axis.name, { temperature: s.temperature + (HEAT_RATE_C_PER_S * HEAT_TICK_MS) / 1000 });
      this.heat(servos);
    });
  }

  /** Sets what a servo's sensors read, then lets its protections act on them as the real servo's do. */
  set(axis: string, reading: { readonly temperature?: number; readonly voltage?: number }): void {
    const s = this.#options.all.find((x) => x.axis.name === axis);
    if (!s)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: "axis",
        issues: `no servo on an axis named ${axis}`,
      });
    if (reading.temperature !== undefined) s.temperature = reading.temperature;
    if (reading.voltage !== undefined) s.voltage = reading.voltage;
    this.apply(s, this.#options.timers.now());
  }

  /** Lets a servo's own protections act on its temperature and supply (servoProtection). */
  apply(s: SimServo, now: number): void {
    const table = this.#options.protocol.table;
    const verdict = servoProtection(s, table);
    if (verdict.kind === "trip") this.shutDown(s, now, verdict.bits, verdict.detail, { clears: false });
    else s.set(table.hardwareError, verdict.bits);
  }

  /**
   * A protection trip: the hardware-error bits set, torque off, the horn
   * stopped where it is, and its motion ended `faulted`.
   * Dynamixel X latches it: Torque Enable is cleared and only a REBOOT brings
   * torque back (e-Manual X-series "Shutdown"; ROBOTIS-GIT/emanual
   * _includes/en/dxl/x/shutdown.md @ 53247968642942cbbdb3fb52e47d5aef4269267a);
   * the reboot instruction (powerLossOf) clears it. Feetech STS unloads
   * (Torque_Enable 0) on a condition enabled in Unloading_Condition (19; bit 5
   * overload) and its Status (65) bits report the condition while it lasts
   * (Feetech STS/SMS memory table; addresses as in LeRobot feetech/tables.py
   * @ 0558acc97b50079ffe184f2e0c4e2a93ed5b7f8f): once the load is gone the bit
   * clears, and torque stays off until a host enables it again.
   */
  shutDown(
    s: SimServo,
    now: number,
    bits: number,
    detail: string,
    options: { readonly clears: boolean } = { clears: true },
  ): void {
    const table = this.#options.protocol.table;
    s.set(table.hardwareError, bits);
    s.set(table.torqueEnable, 0);
    this.#options.motions.end(s, now, "faulted", detail);
    if (table.family === "feetech_sts" && options.clears) {
      this.#options.timers.after(OVERLOAD_CLEARS_MS, () => s.set(table.hardwareError, 0));
    }
  }

  /** Power loss of one servo: it stops, forgets its goal and torque, and is deaf while it comes up. */
  powerLossOf(s: SimServo, now: number, why: string, bootMs: number = this.#options.bootMs ?? DEFAULT_BOOT_MS): void {
    const key = s.motionKey;
    s.freeze(now);
    this.#options.motions.end(s, now, "faulted", why);
    s.powerOn();
    s.bootingUntil = now + bootMs;
    // A reboot clears the latch, not the cause: a servo still too hot trips again as it comes up.
    this.apply(s, now);
    this.#options.effects.append({
      event: "reboot",
      action_id: null,
      joints: [s.axis.name],
      interrupted: key === undefined ? [] : [key],
      old_boot_id: 0,
      boot_id: 0,
    });
    this.#options.logger.info({ servo: s.axis.id, why }, "servo power cycled");
  }

  /** The servo supply of the whole bus drops for `outageMs` (BusSimulator.powerLoss says what that does). */
  powerLossOfBus(outageMs: number, why: string): void {
    const now = this.#options.timers.now();
    const servos = [...servosById(this.#options.all).values()];
    const interrupted = new Set<string>();
    for (const s of servos) {
      if (s.motionKey !== undefined) interrupted.add(s.motionKey);
      s.freeze(now);
      this.#options.motions.end(s, now, "faulted", `${why}: the servo supply dropped`);
      s.powerOn();
      s.bootingUntil = now + outageMs + (this.#options.bootMs ?? DEFAULT_BOOT_MS);
      this.apply(s, now);
    }
    this.#options.effects.append({
      event: "reboot",
      action_id: null,
      joints: servos.map((s) => s.axis.name),
      interrupted: [...interrupted],
      old_boot_id: 0,
      boot_id: 0,
    });
    this.#options.logger.warn({ outage_ms: outageMs, interrupted: [...interrupted], why }, "the bus lost power");
  }
}
