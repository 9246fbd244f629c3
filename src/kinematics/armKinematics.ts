import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError } from "../errors.js";
import { KinematicChain } from "./KinematicChain.js";
import { urdfModelOf } from "./parseUrdf.js";
import { readUrdfDocument } from "./readUrdfDocument.js";
import { buildArmBodies, type ArmBodies } from "./volumes/ArmBodies.js";
import { urdfCollisionsOf } from "./volumes/parseUrdfCollisions.js";
import { readBoundedText } from "../config/files/readBoundedFile.js";

/** The arm's kinematic chain, tied to the config's joint names and limits. */
export interface ArmKinematics {
  readonly chain: KinematicChain;
  /** The URDF file it came from (or `topic /robot_description`). */
  readonly source: string;
  /** Config joint names in chain order (index k ↔ `chain.variables[k]`). */
  readonly jointNames: readonly string[];
  /** The links' collision volumes on the chain (URDF `<collision>` or config `link_volumes`), and the pairs checked for self-collision. */
  readonly bodies: ArmBodies;
}

const cache = new WeakMap<ArmConfig, ArmKinematics | undefined>();

/**
 * The kinematics for a config, or undefined when it names no URDF. Built once
 * per config object and cached. Every moving joint of the chain must be a
 * configured joint; its limits are the tighter of the URDF's and the
 * config's, so IK never proposes what move_joints would refuse.
 */
export function armKinematicsOf(config: ArmConfig): ArmKinematics | undefined {
  if (cache.has(config)) return cache.get(config);
  const built = build(config);
  cache.set(config, built);
  return built;
}

function build(config: ArmConfig): ArmKinematics | undefined {
  const { baseLink, tipLink, robotDescription, urdfText } = config.arm;
  if (baseLink === undefined || tipLink === undefined) return undefined;
  let text: string;
  let urdf: string;
  if (robotDescription !== undefined) {
    // Read from the ROS topic at start (Ros2Host.start); any other transport has no topic to read.
    if (urdfText === undefined)
      throw new ArmbridgeError("ARMB_ERR_KINEMATICS_UNAVAILABLE", {
        what: `arm.robot_description (the URDF from ${robotDescription.topic})`,
      });
    text = urdfText;
    urdf = `topic ${robotDescription.topic}`;
  } else {
    if (config.arm.urdf === undefined) return undefined;
    urdf = config.arm.urdf;
    try {
      text = readBoundedText(urdf, "urdf");
    } catch (error) {
      throw new ArmbridgeError(
        "ARMB_ERR_URDF_INVALID",
        { path: urdf, reason: `cannot read it: ${(error as Error).message}` },
        { cause: error },
      );
    }
  }
  const joints = new Map(config.arm.joints.map((j) => [j.name, j]));
  const document = readUrdfDocument(text, urdf);
  const model = urdfModelOf(document);
  const chain = new KinematicChain(model, baseLink, tipLink, urdf, (name) => joints.get(name));
  const missing = chain.variables.filter((v) => !joints.has(v.name)).map((v) => v.name);
  if (missing.length > 0) {
    throw new ArmbridgeError("ARMB_ERR_URDF_MISMATCH", {
      path: urdf,
      reason: `the chain ${baseLink} → ${tipLink} moves ${missing.join(", ")}, which the config does not name (config joints: ${[...joints.keys()].join(", ")})`,
    });
  }
  const limitIssues = urdfLimitIssues(config, chain);
  if (limitIssues.length > 0)
    throw new ArmbridgeError("ARMB_ERR_URDF_MISMATCH", { path: urdf, reason: limitIssues.join("; ") });
  const frame = config.workspace?.frame;
  if (frame !== undefined && !chain.fixedFrames.has(frame)) {
    throw new ArmbridgeError("ARMB_ERR_URDF_MISMATCH", {
      path: urdf,
      reason: `workspace.frame ${frame} is not a link rigidly attached to ${baseLink} (such links: ${[...chain.fixedFrames.keys()].join(", ")})`,
    });
  }
  const bodies = buildArmBodies({
    model,
    collisions: urdfCollisionsOf(document),
    chain,
    urdfPath: robotDescription === undefined ? urdf : undefined,
    linkVolumes: config.linkVolumes,
    allowedContacts: config.workspace?.allowedContacts ?? [],
    source: urdf,
  });
  return { chain, source: urdf, jointNames: chain.variables.map((v) => v.name), bodies };
}

/** The chain's joint vector from a pose by name; undefined when a chain joint is missing from it. */
export function jointVectorOf(
  kin: ArmKinematics,
  pose: Readonly<Record<string, number>> | undefined,
): Float64Array | undefined {
  if (!pose) return undefined;
  const q = new Float64Array(kin.jointNames.length);
  for (const [k, name] of kin.jointNames.entries()) {
    const v = pose[name];
    if (v === undefined || !Number.isFinite(v)) return undefined;
    q[k] = v;
  }
  return q;
}

/**
 * The config's cross-checks, run again on the limits the URDF adds (the
 * chain's travel is the overlap of the URDF's and the config's): each joint
 * still has a range, and its home and every named pose lie inside it — a
 * pose the URDF forbids would otherwise be sent by move_to_named_pose while
 * IK refuses to go near it.
 */
function urdfLimitIssues(config: ArmConfig, chain: KinematicChain): string[] {
  const issues: string[] = [];
  const index = new Map(config.arm.joints.map((j, i) => [j.name, i]));
  for (const v of chain.variables) {
    const i = index.get(v.name);
    const j = i === undefined ? undefined : config.arm.joints[i];
    if (i === undefined || !j) continue;
    if (!(v.lower < v.upper)) {
      issues.push(
        `joint ${v.name}: its URDF limits and the config's [${j.min}, ${j.max}] leave no travel (overlap [${v.lower}, ${v.upper}])`,
      );
      continue;
    }
    const outside = (value: number): boolean => value < v.lower || value > v.upper;
    if (outside(j.home))
      issues.push(
        `arm.joints[${i}].home ${j.home} of ${v.name} is outside its travel [${v.lower}, ${v.upper}] (the URDF's limits within the config's)`,
      );
    for (const [pose, targets] of Object.entries(config.arm.namedPoses)) {
      const value = targets[v.name];
      if (value !== undefined && outside(value))
        issues.push(
          `arm.named_poses.${pose}.${v.name} ${value} is outside its travel [${v.lower}, ${v.upper}] (the URDF's limits within the config's)`,
        );
    }
  }
  return issues;
}
