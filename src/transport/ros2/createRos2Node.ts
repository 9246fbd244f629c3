import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import pino from "pino";
import { parse as parseYaml } from "yaml";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { tolerancesFile } from "../../config/sections/motion.js";
import { loadConfig } from "../../config/loadConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { formatIssues } from "../../validation/formatIssues.js";
import { ParameterType, type Rclnodejs, type RclNode } from "./rclTypes.js";
import {
  defaultTrajectoryAction,
  ros2OptionsFileSchema,
  ros2OptionsOf,
  type GripperKind,
  type Ros2Options,
  type Ros2GripperOptions,
  type Ros2OptionsFile,
} from "./Ros2Options.js";
import { DEFAULT_CONTROLLER_NAME, resolveRos2Setup, type Ros2Setup } from "./resolveRos2Setup.js";

export interface CreateRos2NodeOptions {
  /** Process arguments in process.argv form; rclnodejs parses `--ros-args ... [--]` (-p, --params-file, -r). */
  readonly argv?: readonly string[];
  /** The arm config to start from; the `config_path` parameter, when set, replaces it. */
  readonly config?: ArmConfig;
  /** ROS options from code, replacing the config's `ros2:` section; ROS parameters override each field. */
  readonly options?: Ros2OptionsFile | undefined;
  /**
   * `armbridge` (default): remove the SIGINT handler rclnodejs installs on
   * import. That handler shuts every ROS context down at once, destroying the
   * node under goals we still wait on; instead the process owner (the CLI)
   * calls transport.close(), which cancels our waits, destroys the handles and
   * then shuts rclnodejs down. With no SIGINT listener left, Node's default
   * (exit) applies. `rclnodejs`: keep rclnodejs's handler.
   */
  readonly signalHandling?: "armbridge" | "rclnodejs";
  readonly logger?: Logger;
}

export interface Ros2NodeHandle {
  readonly node: RclNode;
  /** The arm config after parameters (controllers, tolerances) were applied. */
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  /** Destroys the node and shuts rclnodejs down; idempotent. */
  shutdown(): void;
}

/**
 * Starts the `armbridge` node: initialises rclnodejs with the process's ROS
 * arguments, declares armbridge's parameters (so `ros2 param list` shows them
 * and `-p` / `--params-file` override them), reads them over the file values,
 * and spins the node. Parameters:
 *
 *   config_path                          arm config file (YAML/JSON)
 *   joint_states_topic                   default /joint_states
 *   joint_states_topics                  string[]; read these instead (each driver's own topic)
 *   joint_states_aggregator              follow_sources (default) | accept
 *   speed_scaling_topic                  UR speed_scaling_state_broadcaster topic; "" for none
 *   halt_own_goals                       auto (default) | decelerate | cancel
 *   probe_timeout_ms                     how long start-up reads the controllers' parameters
 *   controller_names                     string[]; JTC controller names
 *   controllers.<name>.action_name       default /<name>/follow_joint_trajectory
 *   controllers.<name>.joints            string[]; the controller's joints, in its order
 *   gripper_action, gripper_kind (auto | gripper_command | parallel_gripper | franka), gripper_joint,
 *   gripper_closed_position, gripper_open_position, gripper_max_effort
 *   tolerances.position, tolerances.gripper, tolerances.stopped_velocity
 *   tolerances.goal_velocity             rad/s, sent as each joint's goal velocity tolerance
 *   goal_time_tolerance                  seconds, > 0
 *   server_wait_ms, goal_response_timeout_ms, cancel_timeout_ms, result_margin_ms, joint_states_timeout_ms,
 *   feedback_idle_ms, settle_ms
 *
 * A params file applies only through its `/**` section and the section named
 * exactly as the node (`armbridge:`): rclnodejs 2.2.0 looks up nothing else
 * (Node._getNativeParameterOverrides), so `/armbridge:` or a namespaced key is
 * silently ignored. A params file with no such section is logged as a warning.
 */
export async function createRos2Node(rcl: Rclnodejs, options: CreateRos2NodeOptions = {}): Promise<Ros2NodeHandle> {
  const log = (options.logger ?? pino({ level: "silent" })).child({ component: "ros2-node" });
  if ((options.signalHandling ?? "armbridge") === "armbridge") rcl.removeSignalHandlers();
  const file = ros2OptionsOf(options.options, options.config);
  const nodeName = file.nodeName;

  const argv = [...(options.argv ?? process.argv)];
  await rcl.init(undefined, argv);
  for (const unused of paramsFilesWithoutSection(argv, nodeName)) {
    log.warn(
      { params_file: unused.file, sections: unused.sections, node: nodeName },
      `params file has no section for node ${nodeName}: rclnodejs applies only "/**" and "${nodeName}" (not "/${nodeName}" or namespaced keys), so none of it is used`,
    );
  }
  let node: RclNode | undefined;
  try {
    node = new rcl.Node(nodeName);
    const params = new ParameterReader(rcl, node);

    const configPath = params.string("config_path", "");
    let config = configPath ? loadConfig(configPath) : (options.config ?? loadConfig());

    const controllers = controllersFromParameters(params, config, file);
    config = configFromParameters(params, config, controllers, nodeName);
    const parsed = optionsFromParameters(params, file, config, controllers, nodeName);
    const resolved = resolveRos2Setup(config, parsed);
    node.spin();
    log.info(
      {
        node: nodeName,
        controllers: resolved.setup.controllers.map((c) => c.actionName),
        gripper: resolved.setup.gripper?.actionName,
      },
      "ROS 2 node up",
    );
    const spun = node;
    let down = false;
    return {
      node: spun,
      config: resolved.config,
      setup: resolved.setup,
      shutdown: () => {
        if (down) return;
        down = true;
        try {
          spun.destroy();
        } finally {
          if (!rcl.isShutdown()) rcl.shutdown();
        }
      },
    };
  } catch (error) {
    try {
      node?.destroy();
    } finally {
      if (!rcl.isShutdown()) rcl.shutdown();
    }
    throw error;
  }
}

/** A trajectory controller as the parameters name it: its joints in its order, and its action. */
interface ControllerParameters {
  readonly name: string;
  readonly joints: string[];
  readonly actionName: string;
}

/** The controllers: `controller_names` and each one's joints and action, over the config's and the file's. */
function controllersFromParameters(
  params: ParameterReader,
  config: ArmConfig,
  file: Ros2Options,
): ControllerParameters[] {
  const fileControllers = new Map(file.controllers.map((c) => [c.name, c.actionName]));
  const armControllers =
    config.arm.controllers.length > 0
      ? config.arm.controllers
      : [{ name: DEFAULT_CONTROLLER_NAME, joints: config.arm.joints.map((j) => j.name) }];
  const names = params.stringArray(
    "controller_names",
    armControllers.map((c) => c.name),
  );
  return names.map((name) => ({
    name,
    joints: params.stringArray(`controllers.${name}.joints`, armControllers.find((c) => c.name === name)?.joints ?? []),
    actionName: params.string(
      `controllers.${name}.action_name`,
      fileControllers.get(name) ?? defaultTrajectoryAction(name),
    ),
  }));
}

/** The arm config with the parameters' controllers and tolerances. */
function configFromParameters(
  params: ParameterReader,
  config: ArmConfig,
  controllers: readonly ControllerParameters[],
  nodeName: string,
): ArmConfig {
  // Parameters override the config's tolerances: held to the config's own rules, or a 0 or negative tolerance would make nothing ever "reached".
  const checked = tolerancesFile.safeParse({
    position: params.number("tolerances.position", config.tolerances.position),
    gripper: params.number("tolerances.gripper", config.tolerances.gripper),
    stopped_velocity: params.number("tolerances.stopped_velocity", config.tolerances.stoppedVelocity),
  });
  if (!checked.success) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: `ROS parameters of node ${nodeName}`,
      issues: formatIssues(checked.error.issues.map((i) => ({ ...i, path: ["tolerances", ...i.path] }))),
    });
  }
  const tolerances = {
    position: checked.data.position,
    gripper: checked.data.gripper,
    stoppedVelocity: checked.data.stopped_velocity,
  };
  return {
    ...config,
    tolerances,
    arm: { ...config.arm, controllers: controllers.map((c) => ({ name: c.name, joints: c.joints })) },
  };
}

/** The ROS options: each field's parameter over the file's value, checked as a file would be. */
function optionsFromParameters(
  params: ParameterReader,
  file: Ros2Options,
  config: ArmConfig,
  controllers: readonly ControllerParameters[],
  nodeName: string,
): Ros2Options {
  const g = file.gripper;
  const topics = params.stringArray("joint_states_topics", file.jointStatesTopics ?? []);
  const gripperFromParams = {
    action_name: params.string("gripper_action", g?.actionName ?? "/gripper_controller/gripper_cmd"),
    kind: params.string("gripper_kind", g?.kind ?? "auto") as GripperKind,
    joint: params.string("gripper_joint", g?.joint ?? "gripper_joint"),
    closed_position: params.number("gripper_closed_position", g?.closedPosition ?? 0),
    open_position: params.number("gripper_open_position", g?.openPosition ?? 0.04),
    max_effort: params.number("gripper_max_effort", g?.maxEffort ?? 10),
  };
  // Without a gripper in the arm config, a gripper in the options is passed on as it is, for resolveRos2Setup to refuse.
  const gripper = config.arm.gripper ? gripperFromParams : g ? gripperFileOf(g) : undefined;
  const merged: Ros2OptionsFile = {
    node_name: nodeName,
    joint_states_topic: params.string("joint_states_topic", file.jointStatesTopic),
    ...(topics.length > 0 ? { joint_states_topics: topics } : {}),
    joint_states_aggregator: params.string(
      "joint_states_aggregator",
      file.jointStatesAggregator,
    ) as Ros2OptionsFile["joint_states_aggregator"],
    controllers: controllers.map((c) => ({ name: c.name, action_name: c.actionName })),
    ...(gripper ? { gripper } : {}),
    speed_scaling_topic: params.string("speed_scaling_topic", file.speedScalingTopic),
    halt_own_goals: params.string("halt_own_goals", file.haltOwnGoals) as Ros2OptionsFile["halt_own_goals"],
    goal_time_tolerance_s: params.number("goal_time_tolerance", file.goalTimeToleranceS),
    goal_velocity_tolerance: params.number("tolerances.goal_velocity", file.goalVelocityTolerance),
    feedback_idle_ms: params.number("feedback_idle_ms", file.feedbackIdleMs),
    settle_ms: params.number("settle_ms", file.settleMs),
    min_motion_ms: file.minMotionMs,
    ...(file.jointLimitMarginRad === undefined ? {} : { joint_limit_margin_rad: file.jointLimitMarginRad }),
    server_wait_ms: params.number("server_wait_ms", file.serverWaitMs),
    goal_response_timeout_ms: params.number("goal_response_timeout_ms", file.goalResponseTimeoutMs),
    cancel_timeout_ms: params.number("cancel_timeout_ms", file.cancelTimeoutMs),
    result_margin_ms: params.number("result_margin_ms", file.resultMarginMs),
    joint_states_timeout_ms: params.number("joint_states_timeout_ms", file.jointStatesTimeoutMs),
    probe_timeout_ms: params.number("probe_timeout_ms", file.probeTimeoutMs),
  };
  const parsed = ros2OptionsFileSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: `ROS parameters of node ${nodeName}`,
      issues: formatIssues(parsed.error.issues),
    });
  }
  return parsed.data;
}

/**
 * Declares each parameter with the file value as default (an override from
 * the command line or a params file replaces it) and reads it back. No
 * descriptor is given, so an override's own type is kept: `-p
 * server_wait_ms:=3000` is an INTEGER (a bigint in rclnodejs) and is accepted
 * where a double was declared.
 */
class ParameterReader {
  readonly #rcl: Rclnodejs;
  readonly #node: RclNode;

  constructor(rcl: Rclnodejs, node: RclNode) {
    this.#rcl = rcl;
    this.#node = node;
  }

  string(name: string, fallback: string): string {
    const value = this.#declare(name, ParameterType.PARAMETER_STRING, fallback);
    if (typeof value !== "string") throw this.#wrongType(name, "a string", value);
    return value;
  }

  number(name: string, fallback: number): number {
    const value = this.#declare(name, ParameterType.PARAMETER_DOUBLE, fallback);
    if (typeof value === "bigint") return Number(value);
    if (typeof value !== "number") throw this.#wrongType(name, "a number", value);
    return value;
  }

  stringArray(name: string, fallback: readonly string[]): string[] {
    const value = this.#declare(name, ParameterType.PARAMETER_STRING_ARRAY, [...fallback]);
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
      throw this.#wrongType(name, "a string array", value);
    return value;
  }

  #declare(name: string, type: number, fallback: unknown): unknown {
    const declared = this.#node.hasParameter(name)
      ? this.#node.getParameter(name)
      : this.#node.declareParameter(new this.#rcl.Parameter(name, type, fallback));
    return declared.value;
  }

  #wrongType(name: string, expected: string, value: unknown): ArmbridgeError {
    return new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: "ROS parameters",
      issues: [
        `${name} must be ${expected}, got ${typeof value === "bigint" ? value.toString() : JSON.stringify(value)}`,
      ],
    });
  }
}

/**
 * The `--params-file` files (inside `--ros-args`) none of whose top-level keys
 * rclnodejs would apply to this node: it takes `/**` and the node's exact
 * name only. A file that cannot be read or parsed is left to rcl, which
 * reports it itself.
 */
export function paramsFilesWithoutSection(
  argv: readonly string[],
  nodeName: string,
): Array<{ file: string; sections: string[] }> {
  const out: Array<{ file: string; sections: string[] }> = [];
  let inRos = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--ros-args") inRos = true;
    else if (a === "--") inRos = false;
    else if (inRos && a === "--params-file") {
      const file = argv[++i];
      if (!file) continue;
      let doc: unknown;
      try {
        doc = parseYaml(readFileSync(file, "utf8"));
      } catch {
        continue;
      }
      const sections = doc && typeof doc === "object" ? Object.keys(doc) : [];
      if (!sections.includes("/**") && !sections.includes(nodeName)) out.push({ file, sections });
    }
  }
  return out;
}

function gripperFileOf(g: Ros2GripperOptions): NonNullable<Ros2OptionsFile["gripper"]> {
  return {
    action_name: g.actionName,
    kind: g.kind,
    joint: g.joint,
    closed_position: g.closedPosition,
    open_position: g.openPosition,
    max_effort: g.maxEffort,
  };
}
