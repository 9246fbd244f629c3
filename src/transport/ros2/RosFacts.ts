import type { GripperBehaviour } from "./gripperOutcome.js";

/**
 * What armbridge learned at start about the controllers it drives, and how:
 * the behaviours that changed between ros2_controllers releases (see the
 * distro table in docs/ros2.md) read from the controllers' own parameters
 * where they show, from installed package versions where not, and otherwise
 * assumed — every line of `lines` says which, for the start-up log.
 */
export interface TrajectoryControllerFacts {
  readonly name: string;
  /** The controller's node, from its action name. */
  readonly node: string;
  /** Its parameters could be read (undefined: it did not answer in time). */
  readonly parameters: ReadonlyMap<string, unknown> | undefined;
  /**
   * Where its speed scaling comes from: `hardware` (UR's scaled controller,
   * speed_scaling_interface_name; stock JTC ≥ 4.39 with
   * speed_scaling.state_interface set, as ur_robot_driver ≥ 6.0 ships it),
   * `input_topic` (stock JTC ≥ 4.39 with a position command interface:
   * `~/speed_scaling_input` or speed_scaling.initial_scaling_factor), `none`,
   * or `unknown`.
   */
  readonly speedScaling: "hardware" | "input_topic" | "none" | "unknown";
  /** With `hardware`: the state interface it reads. */
  readonly scalingInterface?: string;
  readonly initialScaling: number | undefined;
  /** constraints.decelerate_on_cancel (≥ 4.39) with every joint's max_deceleration_on_cancel > 0. */
  readonly decelerateOnCancel: boolean | undefined;
  /**
   * allow_trajectory_replacement (Rolling/Lyrical ≥ 6.8, default true): a new
   * goal blends in from the running trajectory's *planned* state instead of
   * the measured one, which changes how a hold goal must be timed
   * (stoppingPlan). Absent parameter: false; undefined: not known.
   */
  readonly blendsNewGoals: boolean | undefined;
  /** constraints.<joint>.trajectory: JTC aborts with PATH_TOLERANCE_VIOLATED beyond it (0 = unchecked). */
  readonly pathTolerance: Readonly<Record<string, number>>;
}

export interface GripperFacts {
  readonly behaviour: GripperBehaviour;
  /** How the behaviour was decided, in words for the log. */
  readonly how: string;
  /** franka_gripper's default_grasp_epsilon.outer (m); 0.005 when not read. */
  readonly graspEpsilonOuter: number;
}

export interface RosFacts {
  /** ROS_DISTRO of this process (the controllers usually run the same). */
  readonly distro: string | undefined;
  /** Versions of the controller packages installed where armbridge runs (package.xml under AMENT_PREFIX_PATH). */
  readonly packages: Readonly<Record<string, string>>;
  /**
   * Whether JTC reads the tolerances our goals carry: from 2.37.0 / 4.11.0
   * ("[JTC] Process tolerances sent with action goal", #716). Before, the
   * controller's constraints apply (goal tolerance 0 = unchecked by default),
   * and its "reached" must be confirmed on /joint_states. Undefined: unknown.
   */
  readonly goalTolerancesHonoured: boolean | undefined;
  readonly controllers: ReadonlyMap<string, TrajectoryControllerFacts>;
  readonly gripper: GripperFacts | undefined;
  /** The JointState topics armbridge subscribes to, and why. */
  readonly jointStates: { readonly topics: readonly string[]; readonly how: string };
  /** One line per fact or assumption, for the start-up log. */
  readonly lines: readonly string[];
}
