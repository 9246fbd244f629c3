import type { ArmRecovery, ArmRecoveryOutcome, ArmRecoveryStep } from "../Transport.js";
import { awaitWithin } from "./awaitWithin.js";
import type { Rclnodejs, RclNode } from "./rclTypes.js";

export const ERROR_RECOVERY_ACTION = "/action_server/error_recovery";
const ACTION_ERROR_RECOVERY = "franka_msgs/action/ErrorRecovery";
const SRV_SET_HARDWARE = "controller_manager_msgs/srv/SetHardwareComponentState";
const SRV_SWITCH = "controller_manager_msgs/srv/SwitchController";
/** The single-arm component name franka_ros2's ros2_control xacro gives the hardware. */
export const FRANKA_HARDWARE_COMPONENT = "FrankaHardwareInterface";
/** lifecycle_msgs/msg/State PRIMARY_STATE_ACTIVE. */
const STATE_ACTIVE = { id: 3, label: "active" };
/** controller_manager_msgs/srv/SwitchController BEST_EFFORT: a broadcaster that stayed active is not an error. */
const BEST_EFFORT = 1;
/** action_msgs/msg/GoalStatus SUCCEEDED. */
const SUCCEEDED = 4;
const STEP_TIMEOUT_MS = 10_000;
/** A server that runs is discovered well within this; a graph without it is said so without a long wait. */
const DISCOVERY_MS = 2000;

export interface FrankaRecoveryDeps {
  readonly rcl: Rclnodejs;
  readonly node: RclNode;
  /** The trajectory controllers the bridge drives. */
  readonly controllers: () => readonly string[];
  readonly controllerManager?: string;
  /** Every step succeeded. */
  readonly onRecovered?: () => void;
}

type StepRun = (signal: AbortSignal) => Promise<string | undefined>;

/**
 * franka_hardware's recovery after a reflex, in the documented order
 * (franka_ros2 franka_hardware/doc/index.rst, "Recovery Steps"): the
 * ErrorRecovery action (libfranka's automaticErrorRecovery), the hardware
 * component set active, the controllers activated — the
 * joint_state_broadcaster too, which releases that deactivate it on a reflex
 * need; releases that keep it active accept it under BEST_EFFORT. A step
 * returns its failure in words, or undefined when it succeeded.
 */
export class FrankaRecovery implements ArmRecovery {
  readonly #deps: FrankaRecoveryDeps;

  constructor(deps: FrankaRecoveryDeps) {
    this.#deps = deps;
  }

  plan(): readonly ArmRecoveryStep[] {
    return this.#steps().map(({ step, does }) => ({ step, does }));
  }

  async run(signal: AbortSignal): Promise<readonly ArmRecoveryOutcome[]> {
    const out: ArmRecoveryOutcome[] = [];
    let failed = false;
    for (const { step, does, run } of this.#steps()) {
      if (failed) {
        out.push({ step, does, outcome: "not_run", detail: "an earlier step failed; the order matters" });
        continue;
      }
      const within = AbortSignal.any([signal, AbortSignal.timeout(STEP_TIMEOUT_MS)]);
      const problem = await run(within).catch((error: unknown) => String(error));
      failed = problem !== undefined;
      out.push({ step, does, outcome: failed ? "failed" : "done", ...(problem ? { detail: problem } : {}) });
    }
    if (!failed) this.#deps.onRecovered?.();
    return out;
  }

  #steps(): Array<ArmRecoveryStep & { run: StepRun }> {
    const cm = this.#deps.controllerManager ?? "/controller_manager";
    const activate = [...this.#deps.controllers(), "joint_state_broadcaster"];
    return [
      {
        step: "error_recovery",
        does: `clear the robot's error: ${ERROR_RECOVERY_ACTION} (${ACTION_ERROR_RECOVERY})`,
        run: (signal) => this.#errorRecovery(signal),
      },
      {
        step: "set_hardware_component_state",
        does: `set ${FRANKA_HARDWARE_COMPONENT} active: ${cm}/set_hardware_component_state`,
        run: (signal) =>
          this.#call(SRV_SET_HARDWARE, `${cm}/set_hardware_component_state`, signal, {
            name: FRANKA_HARDWARE_COMPONENT,
            target_state: STATE_ACTIVE,
          }),
      },
      {
        step: "switch_controller",
        does: `activate ${activate.join(", ")}: ${cm}/switch_controller`,
        run: (signal) =>
          this.#call(SRV_SWITCH, `${cm}/switch_controller`, signal, {
            activate_controllers: activate,
            deactivate_controllers: [],
            strictness: BEST_EFFORT,
            activate_asap: false,
            timeout: { sec: 5, nanosec: 0 },
          }),
      },
    ];
  }

  async #errorRecovery(signal: AbortSignal): Promise<string | undefined> {
    const { rcl, node } = this.#deps;
    const client = new rcl.ActionClient(node, ACTION_ERROR_RECOVERY, ERROR_RECOVERY_ACTION);
    try {
      const up = await awaitWithin(client.waitForServer(DISCOVERY_MS), signal);
      if (up.kind !== "value" || !up.value)
        return `no ${ERROR_RECOVERY_ACTION} action server: not a franka_ros2 graph with error recovery`;
      const sent = await awaitWithin(client.sendGoal({}), signal);
      if (sent.kind !== "value") return `no answer from ${ERROR_RECOVERY_ACTION}`;
      if (!sent.value.isAccepted()) return `${ERROR_RECOVERY_ACTION} rejected the goal`;
      const handle = sent.value;
      const done = await awaitWithin(handle.getResult(), signal);
      if (done.kind !== "value") return `no result from ${ERROR_RECOVERY_ACTION}`;
      return handle.status === SUCCEEDED ? undefined : `${ERROR_RECOVERY_ACTION} ended with status ${handle.status}`;
    } finally {
      client.destroy();
    }
  }

  async #call(type: string, service: string, signal: AbortSignal, body: object): Promise<string | undefined> {
    const { node } = this.#deps;
    const client = node.createClient(type, service);
    try {
      const up = await awaitWithin(client.waitForService(DISCOVERY_MS), signal);
      if (up.kind !== "value" || !up.value) return `no ${service} service`;
      const answer = await awaitWithin(new Promise<unknown>((resolve) => client.sendRequest(body, resolve)), signal);
      if (answer.kind !== "value") return `no answer from ${service}`;
      return (answer.value as { ok?: unknown }).ok === true ? undefined : `${service} answered ok: false`;
    } finally {
      try {
        node.destroyClient(client);
      } catch {
        // Released with the node already.
      }
    }
  }
}
