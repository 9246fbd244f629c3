import { z } from "zod";
import { countsPerRev, finite, name, namedRecord, positive, servoId } from "../schemaPrimitives.js";

/** The `arm:` section: joints, gripper, named poses, controllers and where its URDF comes from. */

const jointServoFile = z
  .object({
    id: servoId.describe("The servo's id on the bus."),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("The servo model (e.g. sts3215, xl430-w250): `armbridge doctor` checks the servo answering this id is one."),
    counts_per_rev: countsPerRev.default(4096).describe("Encoder counts in one turn."),
    center: finite.default(2048).describe("The count at the joint's 0."),
    sign: z
      .union([z.literal(1), z.literal(-1)])
      .default(1)
      .describe("1 or -1: radians = (count − center) × 2π / counts_per_rev × sign."),
    range_min: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "The servo's lowest position limit in counts (LeRobot's range_min, written into Min_Position_Limit): the joint's min..max must map inside range_min..range_max. Absent: 0.",
      ),
    range_max: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The servo's highest position limit in counts (LeRobot's range_max). Absent: counts_per_rev − 1."),
  })
  .strict()
  .describe("Where a joint sits on a servo bus (docs/servo-bus.md).");

const gripperServoFile = z
  .object({
    id: servoId.describe("The gripper servo's id on the bus."),
    model: z.string().min(1).optional().describe("The servo model, checked by `armbridge doctor`."),
    counts_per_rev: countsPerRev
      .default(4096)
      .describe("One turn in counts: closed and open lie within 0..counts_per_rev − 1."),
    closed: finite.describe("Raw counts when closed (0 on the gripper's scale)."),
    open: finite.describe("Raw counts when open (1 on the gripper's scale)."),
    current_limit: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe(
        "Dynamixel: Current_Limit in register units, with current-based position mode; the gripper then cannot crush what it holds.",
      ),
    torque_limit: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .describe("Feetech: Torque_Limit in register units (0.1 % of stall torque)."),
  })
  .strict()
  .describe("The gripper's servo: raw counts when closed and open, and its force cap.");

const jointFile = z
  .object({
    name: name.describe("The joint's name (as in the URDF and /joint_states)."),
    min: finite.describe("Lowest position (rad, or m for a prismatic joint)."),
    max: finite.describe("Highest position."),
    max_velocity: positive.describe("Largest speed (rad/s)."),
    max_acceleration: positive.describe("Largest acceleration (rad/s²)."),
    home: finite.default(0).describe("Where `home` puts it; within [min, max]."),
    servo: jointServoFile.optional(),
  })
  .strict()
  .refine((j) => j.min < j.max, { message: "min must be below max" })
  .refine((j) => j.home >= j.min && j.home <= j.max, { message: "home must lie within [min, max]" });

const gripperFile = z
  .object({
    name: name.default("gripper").describe("The gripper's axis name."),
    max_velocity: positive.default(1.0).describe("Largest speed on its 0..1 scale, per second."),
    max_acceleration: positive.default(4.0).describe("Largest acceleration on its 0..1 scale, per second²."),
    home: finite.min(0).max(1).default(1).describe("Where `home` puts it: 0 closed, 1 open."),
    servo: gripperServoFile.optional(),
  })
  .strict()
  .describe("The gripper: an axis on a 0..1 scale (0 closed, 1 open).");

const controllerFile = z
  .object({
    name: name.describe("The controller's name."),
    joints: z.array(name).min(1).describe("The axes it drives."),
  })
  .strict();

const robotDescriptionFile = z
  .object({
    topic: z.string().min(1).default("/robot_description").describe("The topic robot_state_publisher publishes."),
    timeout_ms: positive
      .default(5000)
      .describe("How long start waits for it before failing with ARMB_ERR_ROBOT_DESCRIPTION_MISSING."),
  })
  .strict()
  .describe(
    "ROS only: read the URDF at start from the `/robot_description` topic (transient-local, published once) instead of a file; exclusive with `urdf`.",
  );

const namedPose = namedRecord(finite).refine((pose) => Object.keys(pose).length > 0, {
  message: "a named pose names at least one joint",
});

export const armSection = {
  arm: z
    .object({
      name: name.default("arm").describe("The arm's name."),
      joints: z.array(jointFile).min(1).max(64).describe("The arm's joints, base to tip."),
      gripper: gripperFile.optional(),
      named_poses: namedRecord(namedPose)
        .default({})
        .describe("Pose name → joint name → position: the targets of move_to_named_pose."),
      controllers: z
        .array(controllerFile)
        .default([])
        .describe("Controllers that run one goal at a time (ROS JTC): a shared resource, locked as one."),
      urdf: z
        .string()
        .min(1)
        .optional()
        .describe("The arm's URDF, a path relative to the config file: enables Cartesian tools and the envelope."),
      base_link: z.string().min(1).optional().describe("The URDF link the arm's poses are given in."),
      tip_link: z.string().min(1).optional().describe("The URDF link whose pose the Cartesian tools set."),
      robot_description: robotDescriptionFile.optional(),
    })
    .strict(),
};

export type ArmFile = z.output<(typeof armSection)["arm"]>;
export type ArmIssueSink = Pick<z.RefinementCtx, "addIssue">;

/** Where the arm's URDF comes from, as a key to name in messages; undefined when it has none. */
export function urdfKeyOf(arm: ArmFile): "arm.urdf" | "arm.robot_description" | undefined {
  if (arm.urdf !== undefined) return "arm.urdf";
  return arm.robot_description !== undefined ? "arm.robot_description" : undefined;
}

function axisListOf(arm: ArmFile): string {
  return [...arm.joints.map((j) => j.name), ...(arm.gripper ? [arm.gripper.name] : [])].join(", ");
}

/** Cross-checks within `arm:`: unique axis names, poses naming real joints within range, a URDF's links. */
export function checkArm(arm: ArmFile, ctx: ArmIssueSink): void {
  const names = new Set<string>();
  for (const [i, j] of arm.joints.entries()) {
    if (names.has(j.name))
      ctx.addIssue({ code: "custom", path: ["arm", "joints", i, "name"], message: `duplicate joint ${j.name}` });
    names.add(j.name);
  }
  if (arm.gripper && names.has(arm.gripper.name)) {
    const message = `gripper name ${arm.gripper.name} is also a joint`;
    ctx.addIssue({ code: "custom", path: ["arm", "gripper", "name"], message });
  }
  checkNamedPoses(arm, ctx);
}

function checkNamedPoses(arm: ArmFile, ctx: ArmIssueSink): void {
  const jointsByName = new Map(arm.joints.map((j) => [j.name, j]));
  const jointList = [...jointsByName.keys()].join(", ");
  for (const [pose, targets] of Object.entries(arm.named_poses)) {
    for (const [joint, value] of Object.entries(targets)) {
      const j = jointsByName.get(joint);
      const path = ["arm", "named_poses", pose, joint];
      if (!j) {
        const message = `no joint named ${JSON.stringify(joint)}; the arm's joints: ${jointList}`;
        ctx.addIssue({ code: "custom", path, message });
      } else if (value < j.min || value > j.max) {
        ctx.addIssue({ code: "custom", path, message: `${value} is outside [${j.min}, ${j.max}]` });
      }
    }
  }
}

/** A URDF from one place only, with the links the kinematics need. */
export function checkArmUrdf(arm: ArmFile, ctx: ArmIssueSink): void {
  if (arm.urdf !== undefined && arm.robot_description !== undefined) {
    const message = "give arm.urdf (a file) or arm.robot_description (a ROS topic), not both";
    ctx.addIssue({ code: "custom", path: ["arm", "robot_description"], message });
  }
  const urdfKey = urdfKeyOf(arm);
  if (urdfKey === undefined) return;
  if (arm.base_link === undefined)
    ctx.addIssue({ code: "custom", path: ["arm", "base_link"], message: `${urdfKey} needs arm.base_link` });
  if (arm.tip_link === undefined)
    ctx.addIssue({ code: "custom", path: ["arm", "tip_link"], message: `${urdfKey} needs arm.tip_link` });
}

/** Every axis `joints` names belongs to the arm (approval rules, controllers). */
export function checkAxesNamed(
  arm: ArmFile,
  joints: readonly string[],
  path: (string | number)[],
  ctx: ArmIssueSink,
): void {
  const axes = new Set([...arm.joints.map((j) => j.name), ...(arm.gripper ? [arm.gripper.name] : [])]);
  for (const joint of joints) {
    if (!axes.has(joint)) {
      const message = `no axis named ${JSON.stringify(joint)}; the arm's axes: ${axisListOf(arm)}`;
      ctx.addIssue({ code: "custom", path, message });
    }
  }
}
