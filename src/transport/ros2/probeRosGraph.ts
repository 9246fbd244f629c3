import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GripperBehaviour } from "./gripperOutcome.js";
import type { RclNode } from "./rclTypes.js";
import { readNodeParameters } from "./readNodeParameters.js";
import type { GripperSetup, Ros2Setup } from "./resolveRos2Setup.js";
import type { GripperFacts, RosFacts, TrajectoryControllerFacts } from "./RosFacts.js";
import { refusePassthroughController } from "./refusePassthrough.js";

/** The packages whose versions change what the controllers do. */
const PACKAGES = [
  "joint_trajectory_controller",
  "gripper_controllers",
  "ur_controllers",
  "franka_gripper",
  "control_msgs",
];

export interface ProbeDeps {
  readonly node: RclNode;
  readonly setup: Ros2Setup;
  readonly env?: NodeJS.ProcessEnv;
  /** package name → version from its package.xml where armbridge runs; replaced in tests. */
  readonly packageVersion?: (name: string) => string | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** A controller's (or driver's) node from its action name: `/c/follow_joint_trajectory` → `/c`. */
export function nodeOfAction(actionName: string): string {
  const name = actionName.startsWith("/") ? actionName : `/${actionName}`;
  const cut = name.lastIndexOf("/");
  return cut > 0 ? name.slice(0, cut) : name;
}

/**
 * Reads what the running graph says of the controllers (their parameters),
 * of /joint_states (who publishes it) and of the installed packages, within
 * `timeoutMs`, and decides every version-dependent behaviour armbridge
 * relies on — or says what it assumes. Never throws: a graph that does not
 * answer leaves facts undefined and assumptions in `lines`.
 */
export async function probeRosGraph(d: ProbeDeps): Promise<RosFacts> {
  const env = d.env ?? process.env;
  const lines: string[] = [];
  const distro = env.ROS_DISTRO;
  lines.push(distro ? `ROS_DISTRO ${distro} (environment)` : "ROS_DISTRO unset: distro unknown");
  const versionOf = d.packageVersion ?? ((name: string) => installedVersion(name, env));
  const packages: Record<string, string> = {};
  for (const name of PACKAGES) {
    const v = versionOf(name);
    if (v) packages[name] = v;
  }
  const jtcVersion = packages.joint_trajectory_controller;
  lines.push(
    jtcVersion
      ? `joint_trajectory_controller ${jtcVersion} installed here (package.xml; assumed to be what the controller_manager runs)`
      : "joint_trajectory_controller version unknown (no package.xml under AMENT_PREFIX_PATH)",
  );
  const goalTolerancesHonoured = jtcVersion ? honoursGoalTolerances(jtcVersion) : undefined;
  lines.push(
    goalTolerancesHonoured === undefined
      ? "goal tolerances in our goals: not known to be honoured (JTC reads them from 2.37.0 / 4.11.0): a JTC 'reached' is confirmed on /joint_states"
      : goalTolerancesHonoured
        ? "goal tolerances in our goals: honoured (JTC ≥ 2.37.0 / 4.11.0)"
        : `goal tolerances in our goals: ignored by JTC ${jtcVersion} (read from 2.37.0 / 4.11.0): its constraints apply, and its 'reached' is confirmed on /joint_states`,
  );

  const deadline = AbortSignal.any([d.signal, AbortSignal.timeout(d.timeoutMs)]);
  const read = (node: string) => readNodeParameters(d.node, node, d.timeoutMs, deadline).catch(() => undefined);
  const controllerReads = d.setup.controllers.map(async (c) => {
    const node = nodeOfAction(c.actionName);
    const params = await read(node);
    refusePassthroughController(c.name, c.actionName, params);
    return controllerFacts(c.name, node, c.joints, params);
  });
  const gripper = d.setup.gripper;
  const gripperRead = gripper ? read(nodeOfAction(gripper.actionName)) : Promise.resolve(undefined);
  const jointStatesRead = jointStateSources(d, read);
  const [controllers, gripperParams, jointStates] = await Promise.all([
    Promise.all(controllerReads),
    gripperRead,
    jointStatesRead,
  ]);

  for (const c of controllers) lines.push(describeController(c));
  const gripperFacts = gripper ? gripperFactsOf(gripper, gripperParams) : undefined;
  if (gripperFacts) lines.push(`gripper ${gripper?.actionName}: ${gripperFacts.behaviour} (${gripperFacts.how})`);
  lines.push(`joint states from ${jointStates.topics.join(", ")} (${jointStates.how})`);
  return {
    distro,
    packages,
    goalTolerancesHonoured,
    controllers: new Map(controllers.map((c) => [c.name, c])),
    gripper: gripperFacts,
    jointStates,
    lines,
  };
}

function honoursGoalTolerances(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map((p) => Number.parseInt(p, 10));
  if (major === 2) return minor >= 37;
  if (major === 4) return minor >= 11;
  return major > 4;
}

function controllerFacts(
  name: string,
  node: string,
  joints: readonly string[],
  params: ReadonlyMap<string, unknown> | undefined,
): TrajectoryControllerFacts {
  if (!params)
    return {
      name,
      node,
      parameters: undefined,
      speedScaling: "unknown",
      initialScaling: undefined,
      decelerateOnCancel: undefined,
      blendsNewGoals: undefined,
      pathTolerance: {},
    };
  const pathTolerance: Record<string, number> = {};
  for (const j of joints) {
    const t = params.get(`constraints.${j}.trajectory`);
    if (typeof t === "number") pathTolerance[j] = t;
  }
  const commands = params.get("command_interfaces");
  const positionOnly = Array.isArray(commands) && commands.length > 0 && commands.every((c) => c === "position");
  let speedScaling: TrajectoryControllerFacts["speedScaling"] = "none";
  // UR's scaled controller names its hardware interface; stock JTC ≥ 4.39 reads one when speed_scaling.state_interface is set (UR ≥ 6.0).
  const hardwareInterface = [
    params.get("speed_scaling_interface_name"),
    params.get("speed_scaling.state_interface"),
  ].find((v) => typeof v === "string" && v !== "");
  if (hardwareInterface !== undefined) speedScaling = "hardware";
  else if (params.has("speed_scaling.initial_scaling_factor") && positionOnly) speedScaling = "input_topic";
  const initial = params.get("speed_scaling.initial_scaling_factor");
  let decelerateOnCancel: boolean | undefined;
  if (params.has("constraints.decelerate_on_cancel")) {
    decelerateOnCancel =
      params.get("constraints.decelerate_on_cancel") === true &&
      joints.every((j) => Number(params.get(`constraints.${j}.max_deceleration_on_cancel`) ?? 0) > 0);
  } else decelerateOnCancel = false;
  return {
    name,
    node,
    parameters: params,
    speedScaling,
    ...(typeof hardwareInterface === "string" ? { scalingInterface: hardwareInterface } : {}),
    initialScaling: typeof initial === "number" ? initial : undefined,
    decelerateOnCancel,
    blendsNewGoals: params.get("allow_trajectory_replacement") === true,
    pathTolerance,
  };
}

function describeController(c: TrajectoryControllerFacts): string {
  if (!c.parameters) {
    return `controller ${c.name}: parameters of ${c.node} not readable in time: assuming no path tolerance known, speed scaling read from its feedback only, a cancel that stops at once (halt decelerates with a hold goal)`;
  }
  const path = Object.values(c.pathTolerance);
  const pathWords =
    path.length > 0 && path.some((t) => t > 0)
      ? `path tolerance ${[...new Set(path)].join("/")} rad`
      : "no path tolerance";
  const scaling = {
    hardware: `speed scaling from the hardware (${c.scalingInterface ?? "its state interface"})`,
    input_topic: `speed scaling from ~/speed_scaling_input (initial ${c.initialScaling ?? 1})`,
    none: "no speed scaling",
    unknown: "speed scaling unknown",
  }[c.speedScaling];
  return `controller ${c.name} (parameters of ${c.node}): ${scaling}; ${pathWords}; ${c.decelerateOnCancel ? "decelerate_on_cancel on" : "a cancel holds at once (no decelerate_on_cancel)"}${c.blendsNewGoals ? "; a new goal blends in from the planned state (allow_trajectory_replacement)" : ""}`;
}

function gripperFactsOf(gripper: GripperSetup, params: ReadonlyMap<string, unknown> | undefined): GripperFacts {
  const epsilon = params?.get("default_grasp_epsilon.outer");
  const graspEpsilonOuter = typeof epsilon === "number" ? epsilon : 0.005;
  const looksFranka = params?.has("default_grasp_epsilon.inner") === true;
  const fixed = (behaviour: GripperBehaviour, how: string): GripperFacts => ({ behaviour, how, graspEpsilonOuter });
  switch (gripper.kind) {
    case "franka":
      return fixed(
        "franka",
        params
          ? "configured; franka_gripper's parameters read"
          : "configured; grasp epsilon assumed 0.005 m (franka_gripper's default)",
      );
    case "gripper_command":
    case "parallel_gripper":
      if (looksFranka)
        return fixed(
          gripper.kind,
          "configured, although the server's node has franka_gripper's parameters: set kind: franka",
        );
      return fixed(gripper.kind, "configured");
    case "auto":
      if (looksFranka) return fixed("franka", "auto: the server's node has franka_gripper's parameters");
      if (params) return fixed("gripper_command", "auto: the server's node is not franka_gripper");
      if (nodeOfAction(gripper.actionName).endsWith("franka_gripper"))
        return fixed("franka", "auto: parameters not readable; assumed from the node name franka_gripper");
      return fixed("gripper_command", "auto: parameters not readable; assuming gripper_action_controller");
  }
}

/**
 * Which JointState topics to read. A joint_state_publisher republishes its
 * cached values at its `rate` with a fresh stamp whether or not its sources
 * still publish (joint_state_publisher.py timer_callback, ros/joint_state_publisher
 * ros2 @ fb29caa6), so a dead driver stays invisible on its output: when it
 * is the only publisher, its `source_list` is read instead.
 */
async function jointStateSources(
  d: ProbeDeps,
  read: (node: string) => Promise<ReadonlyMap<string, unknown> | undefined>,
): Promise<{ topics: string[]; how: string }> {
  const o = d.setup.options;
  if (o.jointStatesTopics) return { topics: [...o.jointStatesTopics], how: "configured joint_states_topics" };
  const topic = o.jointStatesTopic;
  const publishers = d.node.getPublishersInfoByTopic?.(topic) ?? [];
  const aggregators = publishers.filter((p) => p.node_name === "joint_state_publisher");
  if (publishers.length === 0 || aggregators.length !== publishers.length)
    return {
      topics: [topic],
      how: publishers.length === 0 ? "no publisher seen yet" : "published by the drivers themselves",
    };
  const agg = aggregators[0];
  const ns = agg?.node_namespace && agg.node_namespace !== "/" ? agg.node_namespace : "";
  if (o.jointStatesAggregator === "accept")
    return {
      topics: [topic],
      how: "a joint_state_publisher (joint_states_aggregator: accept): a dead driver cannot be told from a still arm",
    };
  const params = await read(`${ns}/joint_state_publisher`);
  const sources = params?.get("source_list");
  if (!Array.isArray(sources) || sources.length === 0 || !sources.every((s) => typeof s === "string")) {
    return {
      topics: [topic],
      how: "a joint_state_publisher whose source_list could not be read: a dead driver cannot be told from a still arm",
    };
  }
  const resolved = sources.map((s) => (s.startsWith("/") ? s : `${ns}/${s}`));
  return {
    topics: resolved,
    how: `the sources of the joint_state_publisher on ${topic}, which republishes cached values at its rate`,
  };
}

/** The `<version>` of a package's package.xml in the first AMENT_PREFIX_PATH prefix that has it. */
export function installedVersion(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const prefix of (env.AMENT_PREFIX_PATH ?? "").split(":").filter(Boolean)) {
    try {
      const xml = readFileSync(join(prefix, "share", name, "package.xml"), "utf8");
      const m = /<version>\s*([0-9][^<\s]*)\s*<\/version>/.exec(xml);
      if (m?.[1]) return m[1];
    } catch {
      // Not in this prefix: look in the next.
    }
  }
  return undefined;
}
