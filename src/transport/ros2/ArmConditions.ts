import type { LinkState } from "../Transport.js";
import { FrankaReflex } from "./FrankaReflex.js";
import type { Rclnodejs, RclNode } from "./rclTypes.js";
import { UrRobotStatus, type UrArmCondition } from "./UrRobotStatus.js";
import { linkWithCondition } from "./urArmCondition.js";

export interface ArmConditionsDeps {
  readonly rcl: Rclnodejs;
  readonly node: RclNode;
  readonly now: () => number;
  readonly warn: (what: string, error: unknown) => void;
}

/**
 * What the arm's own drivers say keeps it from moving, from every source the
 * graph may have: a UR's safety mode, robot mode and program state
 * (UrRobotStatus), an FR3 reflex read from /rosout (FrankaReflex). A reflex
 * comes first: it is the newest cause, and the UR sources are silent on an FR3.
 */
export class ArmConditions {
  readonly #deps: ArmConditionsDeps;
  readonly #ur: UrRobotStatus;
  readonly #listeners = new Set<() => void>();
  #reflex: FrankaReflex | undefined;

  constructor(deps: ArmConditionsDeps) {
    this.#deps = deps;
    this.#ur = new UrRobotStatus(deps);
    this.#ur.onChange(() => this.#changed());
  }

  start(): void {
    this.#ur.start();
    try {
      this.#reflex = new FrankaReflex(this.#deps.rcl, this.#deps.node, this.#deps.now);
      this.#reflex.onChange(() => this.#changed());
    } catch (error) {
      this.#deps.warn("/rosout: an FR3 reflex will show only as the JointStates going quiet", error);
    }
  }

  condition(): UrArmCondition | undefined {
    return this.#reflex?.condition() ?? this.#ur.condition();
  }

  /** The link as the executor sees it: a UR condition while connected; a reflex in any state. */
  link(link: LinkState): LinkState {
    const ur = linkWithCondition(link, this.#ur.condition());
    return this.#reflex?.linkState(ur) ?? ur;
  }

  /** The recovery's steps all succeeded: a reflex is no longer the reason the arm cannot move. */
  reflexRecovered(): void {
    this.#reflex?.recovered();
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#ur.close();
    this.#reflex?.close();
    this.#listeners.clear();
  }

  #changed(): void {
    for (const l of [...this.#listeners]) l();
  }
}
