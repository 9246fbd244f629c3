import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import type { ActionRecord, ArmStatus, AxisState } from "../Transport.js";
import { decodeRegister, hardwareErrorNames, type BusProtocol, type Register } from "../../protocol/bus/index.js";
import { countOf, positionOf, servoAxesOf } from "../../protocol/bus/servoAxes.js";
import { newServoState, type ServoState } from "./ServoState.js";
import { servoHealthOf } from "./servoHealthOf.js";
import type { ServoHealth } from "../ServoHealth.js";
import type { WireNumbers } from "../WireNumbers.js";

/**
 * The servos of one bus as the bridge last read them: their register
 * copies, what the config says of each axis, and the ArmStatus they make.
 */
export class BusServos {
  readonly list: readonly ServoState[];
  readonly byName: ReadonlyMap<string, ServoState>;
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly #protocol: BusProtocol;
  readonly #config: ArmConfig;
  /** What the wire does to a target: a servo takes whole counts. */
  readonly wire: WireNumbers;

  constructor(config: ArmConfig, protocol: BusProtocol) {
    this.#config = config;
    this.#protocol = protocol;
    this.list = servoAxesOf(config).map((axis) => newServoState(axis, protocol.table.statusBlocks.length));
    this.byName = new Map(this.list.map((s) => [s.axis.name, s]));
    this.actuators = new Map(actuatorsOf(config).map((a) => [a.name, a]));
    const byName = this.byName;
    this.wire = {
      name: "whole servo counts",
      target(axis, value) {
        const s = byName.get(axis);
        return s ? positionOf(s.axis, Math.round(countOf(s.axis, value))) : value;
      },
      // A speed becomes a profile velocity of at least one unit (0 would mean "as fast as it can").
      speed: (value) => value,
    };
  }

  get ids(): number[] {
    return this.list.map((s) => s.axis.id);
  }

  get(s: ServoState, reg: Register): number {
    return decodeRegister(reg, s.memory, reg.address) ?? 0;
  }

  /** The axis position the servo last reported (rad; the gripper 0..1). */
  position(s: ServoState): number {
    return positionOf(s.axis, this.get(s, this.#protocol.table.presentPosition));
  }

  /** The tolerance an axis is judged at (its own, or the config's position tolerance). */
  tolerance(axis: string): number {
    return this.actuators.get(axis)?.tolerance ?? this.#config.tolerances.position;
  }

  /** The status the servos make now, with the newest motions' records. */
  status(actions: readonly ActionRecord[]): ArmStatus {
    const t = this.#protocol.table;
    const axes: Record<string, AxisState> = {};
    const faults: string[] = [];
    let stamp = Infinity;
    for (const s of this.list) {
      const velocity = (this.get(s, t.presentVelocity) * t.presentVelocityUnit) / s.axis.countsPerUnit;
      axes[s.axis.name] = { position: this.position(s), velocity, moving: this.get(s, t.moving) !== 0 };
      stamp = Math.min(stamp, s.stampMs);
      const hw = this.get(s, t.hardwareError);
      if (hw !== 0) faults.push(`servo ${s.axis.id} (${s.axis.name}): ${hardwareErrorNames(t, hw).join(", ")}`);
      else if (s.tripped)
        faults.push(`servo ${s.axis.id} (${s.axis.name}): shut down on ${s.tripped}, torque off until recovered`);
      else if (!s.armed) faults.push(`servo ${s.axis.id} (${s.axis.name}): torque off`);
      if (s.gripLimitProblem) faults.push(`servo ${s.axis.id} (${s.axis.name}): ${s.gripLimitProblem}`);
    }
    return { stampMs: Number.isFinite(stamp) ? stamp : 0, axes, faults, actions };
  }

  /** Each servo's condition and alerts (ServoHealth), given the model number each id answered with. */
  health(models: ReadonlyMap<number, number>): ServoHealth[] {
    return this.list.map((servo) =>
      servoHealthOf({ table: this.#protocol.table, servo, modelNumber: models.get(servo.axis.id) }),
    );
  }
}
