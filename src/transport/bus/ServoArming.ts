import type { Logger } from "pino";
import type { ServoRecovery } from "../Transport.js";
import type { BusChannel } from "./BusChannel.js";
import { decodeRegister, hardwareErrorNames, type BusProtocol, type Register } from "../../protocol/bus/index.js";
import { positionOf } from "../../protocol/bus/servoAxes.js";
import type { ServoState } from "./ServoState.js";

/** How long a recovering servo may stay silent (a Dynamixel restarting after REBOOT) before it counts as not answering. */
const RECOVERY_ANSWER_MS = 3000;

/**
 * Torque on and off the safe way, one servo at a time over the bus: arming
 * that never moves the arm, the gripper's force cap, noting a protection
 * trip, and the operator's recovery from one.
 */
export class ServoArming {
  readonly #protocol: BusProtocol;
  readonly #channel: BusChannel;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #readAttempts: number;

  constructor(o: {
    readonly protocol: BusProtocol;
    readonly channel: BusChannel;
    readonly log: Logger;
    readonly now: () => number;
    readonly readAttempts: number;
  }) {
    this.#protocol = o.protocol;
    this.#channel = o.channel;
    this.#log = o.log;
    this.#now = o.now;
    this.#readAttempts = o.readAttempts;
  }

  /**
   * Torque on without moving the arm: the goal register is set to the present
   * position first (a servo powers up with some other goal, and enabling torque
   * drives the horn to it). A servo already holding torque is left alone.
   */
  async arm(s: ServoState): Promise<boolean> {
    const t = this.#protocol.table;
    if (this.get(s, t.torqueEnable) === 1) {
      await this.#checkGripLimitUnderTorque(s);
      s.armed = true;
      s.armedAt = this.#now();
      return true;
    }
    if (this.get(s, t.hardwareError) !== 0 || s.tripped) {
      this.noteTrip(s);
      this.#log.warn(
        { servo: s.axis.id, joint: s.axis.name, tripped: s.tripped },
        "servo has a hardware error: torque left off until an operator recovers it",
      );
      return false;
    }
    const grip = s.axis.gripLimit;
    if (grip) {
      // The cap goes in before torque: a gripper that cannot be capped is left off rather than armed uncapped.
      const capped =
        grip.currentLimit !== undefined && t.currentBasedPositionMode !== undefined
          ? (await this.#writeChecked(s, t.operatingMode, t.currentBasedPositionMode)) &&
            (await this.#writeChecked(s, t.gripLimit, grip.currentLimit))
          : grip.torqueLimit !== undefined
            ? await this.#writeChecked(s, t.gripLimit, grip.torqueLimit)
            : true;
      if (!capped) {
        s.gripLimitProblem = "the configured gripper force cap could not be written; torque left off";
        return false;
      }
      s.gripLimitProblem = undefined;
    }
    const present = this.get(s, t.presentPosition);
    if (!(await this.#writeChecked(s, t.goalPosition, present))) return false;
    if (!(await this.#writeChecked(s, t.torqueEnable, 1))) return false;
    s.armed = true;
    s.armedAt = this.#now();
    this.#log.info({ servo: s.axis.id, goal: present }, "torque enabled holding the present position");
    return true;
  }

  /**
   * A gripper found holding torque (another program armed it, or this bridge
   * restarted): a RAM limit (Feetech Torque_Limit) is written anyway; an
   * EEPROM one (Dynamixel Current_Limit, Operating_Mode) cannot be written
   * with torque on, so it is read back, and a mismatch is a named fault
   * rather than a gripper silently running without its cap.
   */
  async #checkGripLimitUnderTorque(s: ServoState): Promise<void> {
    const grip = s.axis.gripLimit;
    const t = this.#protocol.table;
    if (!grip) return;
    if (!t.gripLimitNeedsTorqueOff) {
      if (grip.torqueLimit !== undefined) await this.#writeChecked(s, t.gripLimit, grip.torqueLimit);
      s.gripLimitProblem = undefined;
      return;
    }
    if (grip.currentLimit === undefined || t.currentBasedPositionMode === undefined) return;
    const mode = await this.#readRegister(s, t.operatingMode);
    const limit = await this.#readRegister(s, t.gripLimit);
    s.gripLimitProblem =
      mode === t.currentBasedPositionMode && limit === grip.currentLimit
        ? undefined
        : `gripper found with torque on and operating mode ${mode ?? "?"} / current limit ${limit ?? "?"}, not ${t.currentBasedPositionMode} / ${grip.currentLimit} from the config (EEPROM: written only with torque off; disable its torque to let the bridge set them)`;
    if (s.gripLimitProblem)
      this.#log.warn({ servo: s.axis.id, problem: s.gripLimitProblem }, "gripper current limit not in force");
  }

  async #readRegister(s: ServoState, reg: Register): Promise<number | undefined> {
    for (let attempt = 0; attempt < this.#readAttempts; attempt++) {
      const r = (await this.#channel.read(s.axis.id, reg)).byId.get(s.axis.id);
      if (r) return decodeRegister(reg, r.data);
    }
    return undefined;
  }

  /**
   * A write with a status reply, for settings and the arming hold — never for
   * motions. Tried again when unanswered: writing a setting twice, or a hold at
   * the present position of a servo with torque off, cannot move the arm.
   */
  async #writeChecked(s: ServoState, reg: Register, value: number): Promise<boolean> {
    for (let attempt = 0; attempt < this.#readAttempts; attempt++) {
      const r = (await this.#channel.write(s.axis.id, reg, value)).byId.get(s.axis.id);
      if (!r) continue;
      const errors = this.#protocol.statusErrorNames(r.error);
      if (errors.length > 0)
        this.#log.warn({ servo: s.axis.id, address: reg.address, errors }, "servo refused a write");
      return errors.length === 0;
    }
    return false;
  }

  noteTrip(s: ServoState): void {
    const t = this.#protocol.table;
    const bits = this.get(s, t.hardwareError);
    if (s.tripped || bits === 0) return;
    s.tripped = hardwareErrorNames(t, bits).join(", ");
    this.#log.error(
      { servo: s.axis.id, joint: s.axis.name, errors: s.tripped },
      "servo shut down on a hardware error: torque off until an operator recovers it",
    );
  }

  /** One servo's recovery (see BusServoCare.recover); `readStatus` is one status cycle of the whole bus. */
  async recover(
    s: ServoState,
    signal: AbortSignal,
    readStatus: () => Promise<void>,
  ): Promise<Omit<ServoRecovery, "axis">> {
    // One recovery per servo at a time: taken and released in this method, before its first await, so
    // concurrent requests cannot both reboot it and both report `recovered`.
    if (s.recovering)
      return {
        outcome: "in_progress",
        detail: `servo ${s.axis.id} is being recovered by another request right now; nothing was sent for this one (its outcome is in that request's answer and in the servo's status)`,
      };
    s.recovering = true;
    const t = this.#protocol.table;
    const was = s.tripped ?? "torque off";
    s.arming = true;
    try {
      if (this.#protocol.reboot) {
        const { byId } = await this.#channel.exchange(this.#protocol.reboot(s.axis.id), {
          ids: [s.axis.id],
          length: 0,
        });
        if (!byId.has(s.axis.id))
          return {
            outcome: "no_answer",
            detail: `servo ${s.axis.id} did not answer the REBOOT; it had shut down on ${was}`,
          };
        s.armed = false;
        this.#log.warn({ servo: s.axis.id, joint: s.axis.name, was }, "operator recovery: REBOOT sent");
      }
      // Until every status block of the servo answers after the reboot (an X-series servo is deaf while it restarts).
      const since = this.#now();
      const giveUpAt = since + RECOVERY_ANSWER_MS;
      while (s.blockStamps.some((at) => at <= since)) {
        if (signal.aborted || this.#now() > giveUpAt)
          return {
            outcome: "no_answer",
            detail: `servo ${s.axis.id} did not answer after the ${this.#protocol.reboot ? "REBOOT" : "request"}; treat its torque as off`,
          };
        await readStatus();
      }
      const bits = this.get(s, t.hardwareError);
      if (bits !== 0) {
        return {
          outcome: "still_in_error",
          detail: `servo ${s.axis.id} still reports ${hardwareErrorNames(t, bits).join(", ")}: the cause persists (a blocked joint, heat, supply voltage); torque stays off`,
        };
      }
      s.tripped = undefined;
      if (!(await this.arm(s)))
        return {
          outcome: "no_answer",
          detail: `servo ${s.axis.id} did not take the hold at its present position; torque stays off`,
        };
      this.#log.warn(
        { servo: s.axis.id, joint: s.axis.name, was },
        "operator recovery: torque on, holding the present position",
      );
      return {
        outcome: "recovered",
        detail: `had shut down on ${was}; ${this.#protocol.reboot ? "rebooted, " : ""}torque on holding position ${positionOf(s.axis, this.get(s, t.presentPosition)).toFixed(4)}`,
      };
    } finally {
      s.arming = false;
      s.recovering = false;
    }
  }

  get(s: ServoState, reg: Register): number {
    return decodeRegister(reg, s.memory, reg.address) ?? 0;
  }
}
