import type { ServiceDouble, SimulatedRosGraph } from "./SimulatedRosGraph.js";
import { SimActionServer, type GoalRecord, type PreemptionMode } from "./simGoalHandles.js";
import { LOG_LEVEL } from "./simWorld.js";

/**
 * libfranka's words for a reflex, as franka_hardware lets them reach the log:
 * a franka::ControlException whose what() is "libfranka: Move command
 * aborted: motion aborted by reflex! [...]" with the errors named as
 * libfranka's Errors prints them (src/errors.cpp: "cartesian_reflex",
 * "joint_position_limits_violation", …).
 */
export const FRANKA_REFLEX_TEXT = {
  cartesian: 'libfranka: Move command aborted: motion aborted by reflex! ["cartesian_reflex"]',
  jointLimits: 'libfranka: Move command aborted: motion aborted by reflex! ["joint_position_limits_violation"]',
} as const;

/** The logger names the lines come from: ros2_control's resource manager, then the controller manager. */
export const RESOURCE_MANAGER = "resource_manager";
export const CONTROLLER_MANAGER = "controller_manager";
export const HARDWARE_COMPONENT = "FrankaHardwareInterface";
export const ERROR_RECOVERY = "/action_server/error_recovery";

/** One call a person (or the bridge) made to recover, in the order made: the double's record. */
export interface RecoveryCall {
  readonly step: "error_recovery" | "set_hardware_component_state" | "switch_controller";
  readonly ok: boolean;
  readonly request: object;
}

/**
 * What an FR3 does to franka_ros2's graph on a reflex (a collision, a joint
 * limit violated), as the franka_ros2 releases before in-place recovery
 * behave: the libfranka exception leaves franka_hardware's read()/write() as
 * an error (franka_hardware_interface.cpp; robot.cpp readOnce), so the
 * controller manager deactivates the hardware component and every controller
 * claiming its interfaces — the trajectory controller and the
 * joint_state_broadcaster too ("Deactivating following controllers …: [
 * fr3_arm_controller joint_state_broadcaster ]"). franka_gripper is its own
 * node and goes on.
 *
 * Recovery is three steps, in order (franka_hardware/doc/index.rst, "Recovery
 * Steps"): the ErrorRecovery action at /action_server/error_recovery (libfranka
 * automaticErrorRecovery), the hardware component set active
 * (/controller_manager/set_hardware_component_state), the controllers
 * activated (/controller_manager/switch_controller). A step out of order
 * fails, as the doc warns; the double records every call.
 */
export class SimFrankaReflex {
  readonly #world: SimulatedRosGraph;
  readonly calls: RecoveryCall[] = [];
  /** The robot's error is set (a reflex) until error_recovery clears it. */
  robotError = false;
  hardwareActive = true;

  constructor(world: SimulatedRosGraph) {
    this.#world = world;
    world.servers.set(ERROR_RECOVERY, new SimErrorRecoveryServer(() => this.errorRecovery()));
    world.services.set(
      "/controller_manager/set_hardware_component_state",
      this.#service("controller_manager_msgs/srv/SetHardwareComponentState", (request) => this.#setHardware(request)),
    );
    world.services.set(
      "/controller_manager/switch_controller",
      this.#service("controller_manager_msgs/srv/SwitchController", (request) => this.#switch(request)),
    );
  }

  /**
   * A reflex mid-motion: logged, then the hardware and every controller on it go down. `inPlace`: as the
   * newest franka_ros2 does (franka_hardware/doc/index.rst, "Error Recovery"), the hardware goes inactive
   * and the command controller with it, while the broadcasters stay active and publish on.
   */
  reflex(text: string = FRANKA_REFLEX_TEXT.cartesian, options: { readonly inPlace?: boolean } = {}): void {
    const world = this.#world;
    this.robotError = true;
    // ros2_control's resource_manager.cpp catches what read() throws and logs its type, the component and what().
    world.log(
      RESOURCE_MANAGER,
      LOG_LEVEL.ERROR,
      `Exception of type : N6franka16ControlExceptionE thrown during read of the component '${HARDWARE_COMPONENT}': ${text}`,
    );
    const controllers = [...world.controllers.keys()];
    world.log(
      CONTROLLER_MANAGER,
      LOG_LEVEL.ERROR,
      `Deactivating following hardware components as their read cycle resulted in an error: [ ${HARDWARE_COMPONENT} ]`,
    );
    this.hardwareActive = false;
    for (const c of controllers) world.deactivateController(c);
    if (options.inPlace !== true) world.stopJointStates();
  }

  /** Step 1: what a goal of the ErrorRecovery action does (libfranka automaticErrorRecovery). */
  errorRecovery(): boolean {
    this.robotError = false;
    this.calls.push({ step: "error_recovery", ok: true, request: {} });
    return true;
  }

  #setHardware(request: object): { ok: boolean } {
    const r = request as { name?: string; target_state?: { label?: string; id?: number } };
    // Activation fails while the robot's error is set: "the robot error must be cleared" first.
    const ok = r.name === HARDWARE_COMPONENT && r.target_state?.label === "active" && !this.robotError;
    if (ok) this.hardwareActive = true;
    this.calls.push({ step: "set_hardware_component_state", ok, request });
    return { ok };
  }

  #switch(request: object): { ok: boolean } {
    const r = request as { activate_controllers?: string[] };
    const names = r.activate_controllers ?? [];
    const known = [...this.#world.controllers.keys()];
    const ok = this.hardwareActive && names.every((n) => n === "joint_state_broadcaster" || known.includes(n));
    if (ok) {
      for (const n of names) {
        if (n === "joint_state_broadcaster") this.#world.resumeJointStates();
        else this.#world.activateController(n);
      }
    }
    this.calls.push({ step: "switch_controller", ok, request });
    return { ok };
  }

  #service(type: string, answer: (request: object) => object): ServiceDouble {
    return {
      type,
      createClient: () => ({
        sendRequest: (request, callback) => queueMicrotask(() => callback(answer(request))),
        waitForService: () => Promise.resolve(true),
      }),
    };
  }
}

/** franka_hardware's ErrorRecovery action server: an empty goal, succeeded once the robot's error is cleared. */
class SimErrorRecoveryServer extends SimActionServer {
  readonly #recover: () => boolean;

  constructor(recover: () => boolean) {
    super(ERROR_RECOVERY, "franka_msgs/action/ErrorRecovery");
    this.#recover = recover;
  }

  emptyResult(): Record<string, unknown> {
    return {};
  }

  validate(): string | undefined {
    return undefined;
  }

  protected start(_goal: unknown, record: GoalRecord): void {
    record.requestEnd(this.#recover() ? "succeed" : "abort", {});
    this.active = undefined;
  }

  protected stopForCancel(): void {
    // Nothing runs between the goal and its result.
  }

  tick(): void {
    // No control loop: the goal ends when it starts.
  }

  protected preemptionMode(): PreemptionMode {
    return "abort_now";
  }
}
