import { z } from "zod";

/**
 * The arm config file schema. Keys are snake_case in the file (as in ROS
 * parameter files) and camelCase in code; the transform is the only place
 * the two meet.
 */
const name = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a name is a letter then up to 63 letters, digits or underscores");

const finite = z.number().finite();
const positive = finite.positive();

const jointFile = z
  .object({
    name,
    min: finite,
    max: finite,
    max_velocity: positive,
    max_acceleration: positive,
    home: finite.default(0),
  })
  .strict()
  .refine((j) => j.min < j.max, { message: "min must be below max" })
  .refine((j) => j.home >= j.min && j.home <= j.max, { message: "home must lie within [min, max]" });

const gripperFile = z
  .object({
    name: name.default("gripper"),
    max_velocity: positive.default(1.0),
    max_acceleration: positive.default(4.0),
    home: finite.min(0).max(1).default(1),
  })
  .strict();

const controllerFile = z
  .object({
    name,
    joints: z.array(name).min(1),
  })
  .strict();

const point3 = z.tuple([finite, finite, finite]);

/**
 * The safety envelope (docs/kinematics.md): every link frame along every
 * motion's path must stay inside `keep_in` and above `floor_z` (metres, in
 * `frame`), and the tip may travel at most `max_step_m` from where it started.
 */
const workspaceFile = z
  .object({
    /** A URDF link rigidly attached to arm.base_link; default arm.base_link. */
    frame: z.string().min(1).optional(),
    keep_in: z
      .object({ min: point3, max: point3 })
      .strict()
      .refine((b) => b.min.every((v, i) => v < (b.max[i] ?? -Infinity)), { message: "keep_in.min must be below keep_in.max on every axis" })
      .optional(),
    floor_z: finite.optional(),
    max_step_m: positive.optional(),
  })
  .strict();

const toolTimeouts = z
  .object({
    move_joints: positive.default(5000),
    move_to_named_pose: positive.default(8000),
    move_to_point: positive.default(8000),
    move_to_pose: positive.default(8000),
    set_gripper: positive.default(3000),
    stop: positive.default(1000),
    get_arm_state: positive.default(500),
    get_action_status: positive.default(500),
  })
  .strict();

export const armConfigFileSchema = z
  .object({
    arm: z
      .object({
        name: name.default("arm"),
        joints: z.array(jointFile).min(1).max(64),
        gripper: gripperFile.optional(),
        named_poses: z.record(name, z.record(name, finite)).default({}),
        /** Controllers that run one goal at a time (ROS JTC): they are a shared resource. */
        controllers: z.array(controllerFile).default([]),
        /** The arm's URDF (a path relative to the config file): enables Cartesian tools and the envelope. */
        urdf: z.string().min(1).optional(),
        base_link: z.string().min(1).optional(),
        tip_link: z.string().min(1).optional(),
      })
      .strict(),
    workspace: workspaceFile.optional(),
    tolerances: z
      .object({
        /** |target - observed| at or below this counts as reached (rad). */
        position: positive.default(0.01),
        /** The gripper's tolerance on its 0..1 scale. */
        gripper: positive.default(0.02),
        /** |velocity| at or below this counts as stopped (rad/s). */
        stopped_velocity: positive.default(0.005),
      })
      .strict()
      .default({ position: 0.01, gripper: 0.02, stopped_velocity: 0.005 }),
    timeouts_ms: toolTimeouts.default({
      move_joints: 5000,
      move_to_named_pose: 8000,
      move_to_point: 8000,
      move_to_pose: 8000,
      set_gripper: 3000,
      stop: 1000,
      get_arm_state: 500,
      get_action_status: 500,
    }),
    observe: z
      .object({
        /**
         * How long to keep looking after a timeout when the arm shows no sign
         * of the action. While the arm reports the action executing we wait on
         * up to `max_ms`: a motion in progress is not ambiguous, it will end.
         */
        budget_ms: positive.default(1500),
        max_ms: positive.default(20000),
        /** Fallback poll of QUERY_ACTION when the status stream is quiet. */
        query_interval_ms: positive.default(100),
      })
      .strict()
      .default({ budget_ms: 1500, max_ms: 20000, query_interval_ms: 100 }),
    /** A pose older than this is labelled stale and is not used as evidence. */
    stale_after_ms: positive.default(500),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const names = new Set<string>();
    for (const [i, j] of cfg.arm.joints.entries()) {
      if (names.has(j.name)) ctx.addIssue({ code: "custom", path: ["arm", "joints", i, "name"], message: `duplicate joint ${j.name}` });
      names.add(j.name);
    }
    if (cfg.arm.gripper && names.has(cfg.arm.gripper.name)) {
      ctx.addIssue({ code: "custom", path: ["arm", "gripper", "name"], message: `gripper name ${cfg.arm.gripper.name} is also a joint` });
    }
    const jointsByName = new Map(cfg.arm.joints.map((j) => [j.name, j]));
    for (const [pose, targets] of Object.entries(cfg.arm.named_poses)) {
      for (const [joint, value] of Object.entries(targets)) {
        const j = jointsByName.get(joint);
        if (!j) {
          ctx.addIssue({ code: "custom", path: ["arm", "named_poses", pose, joint], message: `unknown joint ${joint}` });
        } else if (value < j.min || value > j.max) {
          ctx.addIssue({ code: "custom", path: ["arm", "named_poses", pose, joint], message: `${value} is outside [${j.min}, ${j.max}]` });
        }
      }
    }
    if (cfg.arm.urdf !== undefined) {
      if (cfg.arm.base_link === undefined) ctx.addIssue({ code: "custom", path: ["arm", "base_link"], message: "arm.urdf needs arm.base_link" });
      if (cfg.arm.tip_link === undefined) ctx.addIssue({ code: "custom", path: ["arm", "tip_link"], message: "arm.urdf needs arm.tip_link" });
    }
    if (cfg.workspace && cfg.arm.urdf === undefined) {
      ctx.addIssue({ code: "custom", path: ["workspace"], message: "an envelope needs the arm's kinematics: set arm.urdf, arm.base_link and arm.tip_link" });
    }
    for (const [i, c] of cfg.arm.controllers.entries()) {
      for (const joint of c.joints) {
        if (!jointsByName.has(joint) && joint !== cfg.arm.gripper?.name) {
          ctx.addIssue({ code: "custom", path: ["arm", "controllers", i, "joints"], message: `unknown joint ${joint}` });
        }
      }
    }
  })
  .transform((f) => ({
    arm: {
      name: f.arm.name,
      joints: f.arm.joints.map((j) => ({
        name: j.name,
        min: j.min,
        max: j.max,
        maxVelocity: j.max_velocity,
        maxAcceleration: j.max_acceleration,
        home: j.home,
      })),
      gripper: f.arm.gripper
        ? {
            name: f.arm.gripper.name,
            maxVelocity: f.arm.gripper.max_velocity,
            maxAcceleration: f.arm.gripper.max_acceleration,
            home: f.arm.gripper.home,
          }
        : undefined,
      namedPoses: f.arm.named_poses,
      controllers: f.arm.controllers,
      urdf: f.arm.urdf,
      baseLink: f.arm.base_link,
      tipLink: f.arm.tip_link,
    },
    workspace: f.workspace
      ? {
          frame: f.workspace.frame,
          keepIn: f.workspace.keep_in,
          floorZ: f.workspace.floor_z,
          maxStepM: f.workspace.max_step_m,
        }
      : undefined,
    tolerances: {
      position: f.tolerances.position,
      gripper: f.tolerances.gripper,
      stoppedVelocity: f.tolerances.stopped_velocity,
    },
    timeoutsMs: {
      moveJoints: f.timeouts_ms.move_joints,
      moveToNamedPose: f.timeouts_ms.move_to_named_pose,
      moveToPoint: f.timeouts_ms.move_to_point,
      moveToPose: f.timeouts_ms.move_to_pose,
      setGripper: f.timeouts_ms.set_gripper,
      stop: f.timeouts_ms.stop,
      getArmState: f.timeouts_ms.get_arm_state,
      getActionStatus: f.timeouts_ms.get_action_status,
    },
    observe: {
      budgetMs: f.observe.budget_ms,
      maxMs: f.observe.max_ms,
      queryIntervalMs: f.observe.query_interval_ms,
    },
    staleAfterMs: f.stale_after_ms,
  }));

export type ArmConfigFile = z.input<typeof armConfigFileSchema>;
export type ArmConfig = z.output<typeof armConfigFileSchema>;
export type JointConfig = ArmConfig["arm"]["joints"][number];
export type GripperConfig = NonNullable<ArmConfig["arm"]["gripper"]>;
export type WorkspaceConfig = NonNullable<ArmConfig["workspace"]>;
