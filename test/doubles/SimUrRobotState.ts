import type { SimulatedRosGraph } from "./SimulatedRosGraph.js";
import type { SimPublisher } from "./simTopicBus.js";

export const TYPE_UR_SAFETY_MODE = "ur_dashboard_msgs/msg/SafetyMode";
export const TYPE_UR_ROBOT_MODE = "ur_dashboard_msgs/msg/RobotMode";
export const TYPE_BOOL = "std_msgs/msg/Bool";

/** ur_dashboard_msgs/msg/SafetyMode and RobotMode values the double uses (Universal_Robots_ROS2_Driver main @ 696e1a7b). */
export const UR_SAFETY = { NORMAL: 1, PROTECTIVE_STOP: 3, ROBOT_EMERGENCY_STOP: 7 } as const;
export const UR_ROBOT_MODE = { POWER_OFF: 3, IDLE: 5, RUNNING: 7 } as const;

export interface SimUrRobotStateOptions {
  /** The External Control program is playing when the driver starts (default true). */
  readonly programRunning?: boolean;
  /**
   * ur_robot_driver's `headless_mode`: the controller_stopper is started with
   * stop_controllers_on_startup false, so the motion controllers stay active
   * at start-up whatever the program does (ur_control.launch.py).
   */
  readonly headlessMode?: boolean;
}

/**
 * What a real UR does to the ROS graph when its program or its safety system
 * changes, as ur_robot_driver reports it:
 *
 * - io_and_status_controller (ur_controllers src/gpio_controller.cpp)
 *   publishes `~/safety_mode`, `~/robot_mode` and `~/robot_program_running`
 *   on change, latched (reliable, transient local).
 * - `robot_program_running` is the External Control script's connection
 *   (hardware_interface.cpp handleRobotProgramState): a paused program is
 *   still running; a stopped one is not.
 * - controller_stopper (ur_robot_driver src/controller_stopper.cpp) switches
 *   every motion controller off when it reads false, and back on when it
 *   reads true; the broadcasters (consistent_controllers) stay on.
 * - A pause, a protective stop and an E-stop all pause the program: the
 *   speed scaling reads 0 (hardware_interface.cpp, runtime_state PAUSED) and
 *   the goal in flight stays executing. Only the safety mode tells them apart.
 */
export class SimUrRobotState {
  readonly #world: SimulatedRosGraph;
  readonly #safety: SimPublisher;
  readonly #robot: SimPublisher;
  readonly #program: SimPublisher;
  /** The speed scaling before the program was paused, given back on resume. */
  #slider = 1;
  #paused = false;
  programRunning: boolean;

  constructor(world: SimulatedRosGraph, options: SimUrRobotStateOptions) {
    this.#world = world;
    const latched = { reliability: "reliable", durability: "transient_local" } as const;
    const node = "io_and_status_controller";
    this.#safety = world.bus.advertise(`/${node}/safety_mode`, TYPE_UR_SAFETY_MODE, node, latched);
    this.#robot = world.bus.advertise(`/${node}/robot_mode`, TYPE_UR_ROBOT_MODE, node, latched);
    this.#program = world.bus.advertise(`/${node}/robot_program_running`, TYPE_BOOL, node, latched);
    this.#safety.publish({ mode: UR_SAFETY.NORMAL });
    this.#robot.publish({ mode: UR_ROBOT_MODE.RUNNING });
    this.programRunning = options.programRunning ?? true;
    this.#program.publish({ data: this.programRunning });
    if (!this.programRunning && options.headlessMode !== true) this.#stopControllers();
  }

  /** The program paused on the pendant: the speed scaling reads 0, nothing else changes. */
  pauseProgram(): void {
    if (!this.#paused) this.#slider = this.#world.speedScaling;
    this.#paused = true;
    this.#world.setSpeedScaling(0);
  }

  /** The program resumed (Play after a pause): the old motion carries on where it stood. */
  resumeProgram(): void {
    this.#paused = false;
    this.#world.setSpeedScaling(this.#slider);
  }

  /** A protective stop (or an E-stop): the program pauses, and the safety mode says why. */
  safetyStop(mode: number = UR_SAFETY.PROTECTIVE_STOP): void {
    this.pauseProgram();
    this.#safety.publish({ mode });
  }

  /** The stop unlocked on the pendant: the safety mode is NORMAL again; the program stays paused. */
  unlockSafetyStop(): void {
    this.#safety.publish({ mode: UR_SAFETY.NORMAL });
  }

  /** The program stopped (Stop on the pendant, /dashboard_client/stop): the controller_stopper switches motion off. */
  stopProgram(): void {
    this.#paused = false;
    this.programRunning = false;
    this.#program.publish({ data: false });
    this.#world.setSpeedScaling(this.#slider);
    this.#stopControllers();
  }

  /** Play (pendant, /dashboard_client/play, resend_robot_program): the script connects, the stopper switches motion on. */
  playProgram(): void {
    this.programRunning = true;
    this.#program.publish({ data: true });
    for (const c of this.#world.controllers.keys()) this.#world.activateController(c);
  }

  setRobotMode(mode: number): void {
    this.#robot.publish({ mode });
  }

  #stopControllers(): void {
    for (const c of this.#world.controllers.keys()) this.#world.deactivateController(c);
  }
}
