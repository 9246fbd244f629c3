import type { ServoHealth } from "../ServoHealth.js";
import type { LinkStateName, ServoCare, ServoRecovery } from "../Transport.js";
import type { BusMotions } from "./BusMotions.js";
import type { BusServos } from "./BusServos.js";
import type { BusStatusLoop } from "./BusStatusLoop.js";
import type { BusProtocol } from "../../protocol/bus/index.js";
import type { ServoArming } from "./ServoArming.js";

export interface BusServoCareContext {
  readonly protocol: BusProtocol;
  readonly servos: BusServos;
  readonly motions: BusMotions;
  readonly arming: ServoArming;
  readonly loop: BusStatusLoop;
  /** Servo id → the model number it reported at open; empty before. */
  readonly models: ReadonlyMap<number, number>;
  readonly linkState: () => LinkStateName;
  readonly closed: () => boolean;
  /** Judges a status cycle just read (trips, power losses) and publishes it. */
  readonly afterCycle: () => void;
  readonly publish: () => void;
}

/** The servo bus's servos as the operator sees them: their own condition, and the recovery of tripped ones. */
export class BusServoCare implements ServoCare {
  readonly #deps: BusServoCareContext;

  constructor(context: BusServoCareContext) {
    this.#deps = context;
  }

  /** Each servo's temperature, voltage, load and hardware errors against its own limits, as last read; empty before open. */
  health(): readonly ServoHealth[] {
    return this.#deps.models.size === 0 ? [] : this.#deps.servos.health(this.#deps.models);
  }

  /**
   * The operator's recovery of tripped servos, one at a time:
   * - Dynamixel X: REBOOT, the only way out of a shutdown (e-Manual, X-series
   *   "Shutdown": Torque Enable is cleared to 0 and "a REBOOT is the only
   *   method to reset Torque Enable to 1"; ROBOTIS-GIT/emanual
   *   _includes/en/dxl/x/shutdown.md @ 53247968642942cbbdb3fb52e47d5aef4269267a).
   *   The servo answers, restarts with its RAM at power-on values (torque
   *   off, goal anywhere), and is read until it answers again.
   * - Feetech STS: no reboot; its Status bits follow the condition, so the
   *   error must read clear (the load is gone) before torque goes back on.
   * Then the usual arming: goal := present position, then torque on, so the
   * horn does not jump. Not automatic, and never while a motion on the servo
   * is still being judged or the bus is not answering.
   */
  async recover(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<readonly ServoRecovery[]> {
    const { servos, loop } = this.#deps;
    // Judged on a fresh read of every servo: the status loop's last cycle may be older than the trip
    // the operator is answering, and "nothing to recover" about a servo that just shut down is wrong.
    if (!this.#deps.closed() && !options.signal.aborted && this.#deps.linkState() === "connected") {
      await loop.readAll();
      this.#deps.afterCycle();
    }
    const names = options.axes ?? servos.list.filter((s) => s.tripped || !s.armed).map((s) => s.axis.name);
    const out: ServoRecovery[] = [];
    for (const name of names) out.push(await this.#recoverOne(name, options.signal));
    this.#deps.publish();
    return out;
  }

  async #recoverOne(name: string, signal: AbortSignal): Promise<ServoRecovery> {
    const { servos, loop } = this.#deps;
    const t = this.#deps.protocol.table;
    const s = servos.byName.get(name);
    if (!s)
      return { axis: name, outcome: "no_answer", detail: `no servo drives an axis named ${JSON.stringify(name)}` };
    const linkState = this.#deps.linkState();
    if (this.#deps.closed() || signal.aborted)
      return { axis: name, outcome: "no_answer", detail: "the transport is closing or the request was aborted" };
    if (linkState !== "connected")
      return { axis: name, outcome: "no_answer", detail: `the bus is ${linkState}: nothing can reach the servo` };
    if (this.#deps.motions.busyOn(name))
      return { axis: name, outcome: "busy", detail: "a motion on it is still being judged" };
    if (s.armed && !s.tripped && servos.get(s, t.hardwareError) === 0)
      return { axis: name, outcome: "not_needed", detail: "nothing to recover: torque on, no hardware error" };
    return { axis: name, ...(await this.#deps.arming.recover(s, signal, () => loop.readAll())) };
  }
}
