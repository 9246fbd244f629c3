import type { Logger } from "pino";
import { ArmbridgeError } from "../../src/errors.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { BusProtocol } from "../../src/protocol/bus/index.js";
import { countOf, positionOf } from "../../src/protocol/bus/servoAxes.js";
import type { Clock } from "../Clock.js";
import type { EffectsSink } from "../EffectsLog.js";
import type { FaultPlan } from "../faults.js";
import type { ByteStreamEndpoint } from "../links/DeviceLink.js";
import { layOutServos, type BusLayoutFile } from "./BusLayout.js";
import { BusTimers } from "./BusTimers.js";
import { FaultCues } from "./FaultCues.js";
import { PacketFront } from "./PacketFront.js";
import { RegisterFile } from "./RegisterFile.js";
import { ServoConditions, servosById } from "./ServoConditions.js";
import { OVERLOAD_BIT, ServoMotions } from "./ServoMotions.js";
import { SimServo } from "./SimServo.js";

export interface BusSimulatorOptions {
  readonly config: ArmConfig;
  readonly protocol: BusProtocol;
  readonly clock: Clock;
  readonly faults: FaultPlan;
  readonly effects: EffectsSink;
  readonly logger: Logger;
  /** Every reply leaves this much later: a late status packet. */
  readonly ackDelayMs: number;
  /** Emulate the bus at this many baud (10 bits per byte, half duplex); undefined = as fast as the link goes. */
  readonly baud?: number | undefined;
  /** A servo that lost power is deaf this long. */
  readonly bootMs?: number;
  /** Axes whose next motion stalls half-way, once each (a fault on cue, as the serial sim's --stall-joint). */
  readonly stallJoints?: readonly string[];
  /** Axes whose next motion loses power half-way, once each: the whole bus's servo supply drops (--power-loss-joint). */
  readonly powerLossJoints?: readonly string[];
  /** How long a power loss on cue lasts (ms). Default 500. */
  readonly powerLossMs?: number;
  /** Servos that heat up (HEAT_RATE_C_PER_S while their torque is on) until they trip on overheating (--heat-joint). */
  readonly heatJoints?: readonly string[];
  /** Start temperatures (°C) by axis (--servo-temperature). */
  readonly servoTemperatures?: Readonly<Record<string, number>>;
  /** The servo supply (V) every servo reads, when not each model's nominal (--supply-voltage). */
  readonly supplyVoltage?: number;
  /** The model number every servo reports (default: the table's first); another one makes another arm. */
  readonly modelNumber?: number;
  /** What is on the bus, when it is not the config's servos mounted as the config says (BusLayout.ts). */
  readonly layout?: BusLayoutFile | undefined;
}

/**
 * firmware-sim's servo bus: one SimServo per configured id, answering
 * instruction packets of one protocol on a byte stream. Ground truth goes to
 * the effects log with the serial sim's events; a bus carries no action id,
 * so `action_id` is null and `motion` names the motion (one goal write to a
 * set of servos) for pairing starts with ends.
 *
 * It assembles its parts and is the face tests and cues use: the packet
 * front (PacketFront), the register file (RegisterFile), the motion physics
 * (ServoMotions), conditions and protections (ServoConditions), the faults
 * on cue (FaultCues); what a hand or a test does to the servos is here.
 */
export class BusSimulator implements ByteStreamEndpoint {
  /** Every servo on the bus, in layout order (several may share an id or sit at other bauds). */
  readonly all: readonly SimServo[];
  readonly #timers: BusTimers;
  readonly #effects: EffectsSink;
  readonly #front: PacketFront;
  readonly #registers: RegisterFile;
  readonly #conditions: ServoConditions;

  constructor(options: BusSimulatorOptions) {
    const { protocol, faults, effects, logger } = options;
    const table = protocol.table;
    const timers = new BusTimers(options.clock);
    const now = timers.now();
    const all = layOutServos(options.config, protocol, options.layout).map(
      (l) =>
        new SimServo(
          l.axis,
          table,
          options.modelNumber === undefined ? l : { ...l, modelNumber: options.modelNumber },
          l.startCount,
          now,
        ),
    );
    checkAxesNamed(all, options);
    this.all = all;
    this.#timers = timers;
    this.#effects = effects;
    const motions: ServoMotions = new ServoMotions({
      protocol,
      faults,
      effects,
      logger,
      all,
      timers,
      shutDown: (s, at, bits, detail) => conditions.shutDown(s, at, bits, detail),
      cueFaults: (motion, joining, longestMs, at) => cues.arm(motion, joining, longestMs, at),
    });
    const conditions = new ServoConditions({ protocol, effects, logger, all, timers, motions, bootMs: options.bootMs });
    this.#conditions = conditions;
    this.#registers = new RegisterFile({ protocol, logger, motions });
    this.#front = new PacketFront({
      protocol,
      faults,
      timers,
      all,
      registers: this.#registers,
      conditions,
      ackDelayMs: options.ackDelayMs,
      baud: options.baud,
      lineBaud: options.baud ?? options.config.bus?.baud ?? table.setup.factoryBaud,
    });
    const front = this.#front;
    const cues = new FaultCues({
      faults,
      timers,
      stallJoints: options.stallJoints ?? [],
      powerLossJoints: options.powerLossJoints ?? [],
      powerLossMs: options.powerLossMs ?? 500,
      freezeReplies: (untilMs) => front.freezeUntil(untilMs),
      stall: (servo, at, detail) => {
        servo.freeze(at);
        motions.end(servo, at, "stalled", detail);
      },
      powerLossOfServo: (servo, at, why) => conditions.powerLossOf(servo, at, why),
      powerLossOfBus: (outageMs, why) => conditions.powerLossOfBus(outageMs, why),
    });
    for (const s of all) {
      const t = options.servoTemperatures?.[s.axis.name];
      if (t !== undefined) s.temperature = t;
      if (options.supplyVoltage !== undefined) s.voltage = options.supplyVoltage;
      conditions.apply(s, now);
    }
    const heating = all.filter((s) => options.heatJoints?.includes(s.axis.name));
    if (heating.length > 0) conditions.heat(heating);
  }

  /**
   * Sets what a servo's sensors read (tests, cues): its temperature (°C)
   * and/or its supply (V), then lets its protections act on them as the
   * real servo's do (ServoConditions).
   */
  setCondition(axis: string, reading: { readonly temperature?: number; readonly voltage?: number }): void {
    this.#conditions.set(axis, reading);
  }

  /** The servo supply of the whole bus is now `volts` (a sagging or over-voltage supply). */
  setSupplyVoltage(volts: number): void {
    for (const s of this.all) this.setCondition(s.axis.name, { voltage: volts });
  }

  /** The servos by the id the config gave their axis (the first, where a layout repeats one): for tests. */
  get servos(): ReadonlyMap<number, SimServo> {
    return servosById(this.all);
  }

  setLineBaud(baud: number): number {
    return this.#front.setLineBaud(baud);
  }

  lineBaud(): number {
    return this.#front.lineBaud();
  }

  attach(write: (bytes: Uint8Array) => void): void {
    this.#front.attach(write);
  }

  detach(): void {
    this.#front.detach();
  }

  close(): void {
    this.#timers.close();
  }

  receive(chunk: Uint8Array): void {
    this.#front.receive(chunk);
  }

  /** A protection trip of one servo now (tests): overload unless other hardware-error bits are named. */
  shutDownOnCue(id: number, bits: number = OVERLOAD_BIT): void {
    const s = this.servos.get(id);
    if (s) this.#conditions.shutDown(s, this.#timers.now(), bits, "hardware error on cue");
  }

  /**
   * The servo supply of the whole bus drops for `outageMs` (a browned-out
   * supply, a pulled power lead), the USB adapter staying up: every servo
   * stops where it is, answers nothing until power is back and it has
   * booted, and comes up as after any power-on. On a real servo that means
   * the volatile registers are back at their initial values while the
   * encoder still reads where the horn is:
   * - Dynamixel X: "Data in the RAM Area is reset to initial values when the
   *   power is reset" (Torque Enable 0, Goal Position, profiles), while the
   *   EEPROM area (ID, Operating Mode, limits) is kept (e-Manual X-series
   *   control table, "Area (EEPROM, RAM)" and "Torque Enable(64)": default 0;
   *   ROBOTIS-GIT/emanual _includes/en/dxl/x/control_table.md @
   *   add0d1dabec2202f8ae9848b7eda8e98f9a44b0f, torque_enable.md @
   *   9148f160983dcfb479b19cac1f29f85ffefdf820). A servo whose Startup
   *   Configuration(60) has "Startup Torque On" would come back holding
   *   torque (startup_configuration.md @ 9d6b128d); the simulated ones do not.
   * - Feetech STS: torque enable (40), acceleration, goal position, goal time
   *   and speed, torque limit (40–55) are the runtime (SRAM) area; ID, limits,
   *   offset and mode (5–33) the persistent one (ftservo/ftservo-wiki
   *   docs/en/reference/memory-sms-sts.md @ a1c18bd4df9c845c3027703ed0b13b2093147afb,
   *   after the SDK's SMS_STS.h "SRAM" / "EPROM" sections).
   * SimServo.powerOn puts the goal register away from the horn on purpose: a
   * host that switches torque on before writing the goal is caught moving
   * the arm. One `reboot` effect names every servo and the motions cut short.
   */
  powerLoss(outageMs: number, why = "power loss on cue"): void {
    this.#conditions.powerLossOfBus(outageMs, why);
  }

  /**
   * Cuts one servo's power now, as --reboot-rate does part-way through a motion
   * (tests, demos). `bootMs` overrides how long it stays deaf: 0 is a brown-out
   * the host sees no gap in — only the torque register tells.
   */
  powerCycle(id: number, bootMs?: number): void {
    const s = this.servos.get(id);
    if (s) this.#conditions.powerLossOf(s, this.#timers.now(), "power cycled on cue", bootMs);
  }

  /**
   * A hand turns a torque-off servo's horn to `toCount` over `durationMs`
   * (tests, and `armbridge calibrate` on the simulator). A servo holding
   * torque resists: that is refused, as a person would feel it. Logged as
   * `moved_by_hand` with the axis's true positions. Returns how long the
   * turn takes (ms): a hand does not go faster than it can.
   */
  turnByHand(servo: SimServo, toCount: number, durationMs = 300): number {
    if (!this.all.includes(servo)) throw new Error("not a servo of this bus");
    if (servo.torque)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: servo.axis.name,
        issues: "the servo holds torque: it cannot be turned by hand",
      });
    const now = this.#timers.now();
    servo.sample(now);
    const from = positionOf(servo.axis, servo.position);
    const trajectory = servo.turnByHand(now, toCount, durationMs);
    this.#effects.append({
      event: "moved_by_hand",
      action_id: null,
      joints: [servo.axis.name],
      from: { [servo.axis.name]: from },
      to: { [servo.axis.name]: positionOf(servo.axis, toCount) },
    });
    return trajectory.endMs - now;
  }

  /** Turns a joint (or the gripper, 0..1) by hand to `position` in its true units; returns how long that takes (ms). */
  turnJointByHand(name: string, position: number, durationMs = 300): number {
    const servo = this.all.find((s) => s.axis.name === name);
    if (!servo) throw new Error(`no servo on joint ${name}`);
    return this.turnByHand(servo, countOf(servo.axis, position), durationMs);
  }

  /** Where a joint truly is now, in its units (rad, or 0..1 for the gripper): the ground truth calibration is judged by. */
  truePosition(name: string): number | undefined {
    const servo = this.all.find((s) => s.axis.name === name);
    if (!servo) return undefined;
    servo.sample(this.#timers.now());
    return positionOf(servo.axis, servo.position);
  }

  /** The goal register of a servo, for tests. */
  goalOf(id: number): number | undefined {
    const s = this.servos.get(id);
    return s ? this.#registers.goalOf(s) : undefined;
  }
}

/** Every axis a cue or a condition names is on the bus. */
function checkAxesNamed(all: readonly SimServo[], options: BusSimulatorOptions): void {
  const names = new Set(all.map((s) => s.axis.name));
  for (const [flag, list] of [
    ["--stall-joint", options.stallJoints ?? []],
    ["--power-loss-joint", options.powerLossJoints ?? []],
    ["--heat-joint", options.heatJoints ?? []],
    ["--servo-temperature", Object.keys(options.servoTemperatures ?? {})],
  ] as const) {
    const unknownAxes = list.filter((n) => !names.has(n));
    if (unknownAxes.length > 0)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: flag,
        issues: `no axis named ${unknownAxes.join(", ")}`,
      });
  }
}
