import { z } from "zod";
import { camerasFileSchema, checkCameras, checkScene, sceneFileSchema, toCameraConfigs, toSceneConfig } from "./sections/cameras.js";
import { allowedContactsFile, keepOutFile, linkVolumesFile, toKeepOutZones } from "./envelopeConfig.js";
import { checkServoBus } from "./checkServoBus.js";
import { ros2SectionSchema } from "./sections/ros2.js";
import { MAX_SERVO_ID } from "./servoBusLimits.js";

/**
 * The arm config file schema. Keys are snake_case in the file (as in ROS
 * parameter files) and camelCase in code; the transform is the only place
 * the two meet.
 */
/**
 * Names index objects all over the bridge (positions, poses, statuses), and a
 * name inherited from Object.prototype (`constructor`, `toString`,
 * `__proto__`…) would read as present on every one of them — or vanish, as a
 * `__proto__` key does. Such names are refused here, once, rather than guarded
 * at every lookup.
 */
const BUILT_IN_NAME = "this name is a built-in property of every JavaScript object; choose another";

const name = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a name is a letter then up to 63 letters, digits or underscores")
  .refine((n) => !(n in Object.prototype), { message: BUILT_IN_NAME });

/**
 * A record keyed by names. zod's record skips a `__proto__` key without a
 * word (the pose would silently vanish), so the raw keys are checked first.
 */
function namedRecord<V extends z.ZodType>(value: V) {
  return z
    .unknown()
    .superRefine((raw, ctx) => {
      if (raw === null || typeof raw !== "object") return;
      for (const key of Object.keys(raw)) if (key in Object.prototype) ctx.addIssue({ code: "custom", path: [key], message: BUILT_IN_NAME });
    })
    .pipe(z.record(name, value));
}

/** The largest finite float32: limits and speeds travel as float32 on the serial wire. */
const FLOAT32_MAX = 3.4028234663852886e38;
const finite = z
  .number()
  .finite()
  .refine((v) => Math.abs(v) <= FLOAT32_MAX, { message: "must be representable as a finite float32 (the serial wire carries float32)" });
const positive = finite.positive().refine((v) => Math.fround(v) > 0, { message: "is too small to survive as a float32 (it would become 0 on the serial wire)" });

/** A servo id: the widest any protocol allows here; the protocol's own range is checked with the bus (servoBusLimits). */
const servoId = z.number().int().min(0).max(MAX_SERVO_ID);
const countsPerRev = z.number().int().positive().max(1 << 24);

/** Where a joint sits on a servo bus: `radians = (count − center) × 2π / counts_per_rev × sign`. */
const jointServoFile = z
  .object({
    id: servoId,
    /** The servo model (e.g. sts3215, xl430-w250): `armbridge doctor` checks that the servo answering this id is one. */
    model: z.string().min(1).optional(),
    counts_per_rev: countsPerRev.default(4096),
    center: finite.default(2048),
    sign: z.union([z.literal(1), z.literal(-1)]).default(1),
    /**
     * The servo's position limits in counts (LeRobot's range_min/range_max,
     * which it writes into Min/Max_Position_Limit): the joint's min..max must
     * map inside them. Absent: the whole turn, 0..counts_per_rev − 1.
     */
    range_min: z.number().int().min(0).optional(),
    range_max: z.number().int().min(0).optional(),
  })
  .strict();

/** The gripper's servo: raw counts when closed and open (0 and 1 on the gripper's scale), and its force cap. */
const gripperServoFile = z
  .object({
    id: servoId,
    model: z.string().min(1).optional(),
    /** One turn in counts: closed and open lie within 0..counts_per_rev − 1. */
    counts_per_rev: countsPerRev.default(4096),
    closed: finite,
    open: finite,
    /** Dynamixel: Current_Limit in register units, with current-based position mode; the gripper then cannot crush what it holds. */
    current_limit: z.number().int().min(0).max(65535).optional(),
    /** Feetech: Torque_Limit in register units (0.1 % of stall torque). */
    torque_limit: z.number().int().min(0).max(1000).optional(),
  })
  .strict();

const busFile = z
  .object({
    protocol: z.enum(["dynamixel_2", "feetech_sts"]),
    baud: z.number().int().min(300).max(10_000_000).default(1_000_000),
    /** LeRobot calibration JSON (`{motor: {id, drive_mode, homing_offset, range_min, range_max}}`), relative to the config file. */
    calibration: z.string().min(1).optional(),
  })
  .strict();

const jointFile = z
  .object({
    name,
    min: finite,
    max: finite,
    max_velocity: positive,
    max_acceleration: positive,
    home: finite.default(0),
    servo: jointServoFile.optional(),
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
    servo: gripperServoFile.optional(),
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
 * The safety envelope (docs/kinematics.md): every link frame and link volume
 * along every motion's path must stay inside `keep_in`, above `floor_z` and
 * out of every `keep_out` zone (metres, in `frame`), apart from the arm's
 * other links except adjacent ones and `allowed_contacts`; the tip may travel
 * at most `max_step_m` from where it started.
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
    /** Boxes `{name, min, max}` or vertical cylinders `{name, center: [x, y], radius, z: [bottom, top]}` no link volume may enter. */
    keep_out: keepOutFile.optional(),
    /** `[[linkA, linkB]]`: link pairs that may touch (a gripper's fingers); never a self-collision. */
    allowed_contacts: allowedContactsFile.optional(),
  })
  .strict();

/**
 * Where the URDF comes from on ROS (docs/kinematics.md): the `/robot_description`
 * topic robot_state_publisher publishes once, transient-local, so a late
 * subscriber asking for transient-local gets it. Read once at start.
 */
const robotDescriptionFile = z
  .object({
    topic: z.string().min(1).default("/robot_description"),
    /** How long start waits for it before failing with ARMB_ERR_ROBOT_DESCRIPTION_MISSING. */
    timeout_ms: positive.default(5000),
  })
  .strict();

/** `kinematics: moveit` (ROS only): MoveIt's compute_ik service instead of the local solver (docs/kinematics.md). */
const moveitFile = z
  .object({
    /** The MoveIt planning group (SRDF) whose tip is arm.tip_link. */
    group: z.string().min(1),
    service: z.string().min(1).default("/compute_ik"),
    /**
     * MoveIt's own IK search time, whole seconds: move_group passes only
     * `timeout.sec` to RobotState::setFromIK, and 0 there means the group's
     * kinematics_solver_timeout from kinematics.yaml.
     */
    solve_timeout_s: z.number().int().min(0).max(60).default(1),
    /** How long we wait for the answer (includes the search); past it the call is rejected, nothing sent. */
    call_timeout_ms: positive.default(3000),
    /** Ask MoveIt for a collision-free solution (planning scene); its NO_IK_SOLUTION then also means "only in collision". */
    avoid_collisions: z.boolean().default(true),
  })
  .strict();

/** `tolerances:`; also what ROS parameters that override them are checked against (createRos2Node). */
export const tolerancesFile = z
  .object({
    /** |target - observed| at or below this counts as reached (rad). */
    position: positive.default(0.01),
    /** The gripper's tolerance on its 0..1 scale. */
    gripper: positive.default(0.02),
    /** |velocity| at or below this counts as stopped (rad/s). */
    stopped_velocity: positive.default(0.005),
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
    get_camera_image: positive.default(3000),
    move_to_image_point: positive.default(8000),
  })
  .strict();

/**
 * Whether a tool's calls wait for an operator's approval before anything is
 * sent: `never` (the default), `always`, or only when the motion's targets
 * include one of `joints` (joint or gripper names, e.g. `{joints: [wrist_1]}`).
 */
const approvalRuleFile = z.union([z.enum(["never", "always"]), z.object({ joints: z.array(name).min(1).max(65) }).strict()]);

export const armConfigFileSchema = z
  .object({
    /** A servo bus with no firmware in between (docs/servo-bus.md); absent for firmware and ROS arms. */
    bus: busFile.optional(),
    arm: z
      .object({
        name: name.default("arm"),
        joints: z.array(jointFile).min(1).max(64),
        gripper: gripperFile.optional(),
        named_poses: namedRecord(namedRecord(finite).refine((pose) => Object.keys(pose).length > 0, { message: "a named pose names at least one joint" })).default({}),
        /** Controllers that run one goal at a time (ROS JTC): they are a shared resource. */
        controllers: z.array(controllerFile).default([]),
        /** The arm's URDF (a path relative to the config file): enables Cartesian tools and the envelope. */
        urdf: z.string().min(1).optional(),
        base_link: z.string().min(1).optional(),
        tip_link: z.string().min(1).optional(),
        /** ROS only: read the URDF from this topic at start instead of a file (exclusive with `urdf`). */
        robot_description: robotDescriptionFile.optional(),
      })
      .strict(),
    workspace: workspaceFile.optional(),
    /** Which IK answers Cartesian targets: the local solver (default) or, on ROS, MoveIt's compute_ik. */
    kinematics: z.enum(["local", "moveit"]).default("local"),
    moveit: moveitFile.optional(),
    /** How to reach the arm's ROS 2 controllers (docs/ros2.md); ROS parameters override it. */
    ros2: ros2SectionSchema.optional(),
    tolerances: tolerancesFile.default({ position: 0.01, gripper: 0.02, stopped_velocity: 0.005 }),
    timeouts_ms: toolTimeouts.default({
      move_joints: 5000,
      move_to_named_pose: 8000,
      move_to_point: 8000,
      move_to_pose: 8000,
      set_gripper: 3000,
      stop: 1000,
      get_arm_state: 500,
      get_action_status: 500,
      get_camera_image: 3000,
      move_to_image_point: 8000,
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
        /**
         * The waits above count the arm's time (its pace: a speed slider at
         * 30 % stretches them 3.3×). While the arm is paused (speed scaling 0:
         * a teach pendant's slider at 0, its program paused) that time stands
         * still; a call waits this long in a pause before it ends `unknown`,
         * saying the arm is paused.
         */
        pause_max_ms: positive.default(120_000),
      })
      .strict()
      .default({ budget_ms: 1500, max_ms: 20000, query_interval_ms: 100, pause_max_ms: 120_000 }),
    /** A pose older than this is labelled stale and is not used as evidence. */
    stale_after_ms: positive.default(500),
    /** Tool name → approval rule (docs/architecture.md, "Approval before motion"). `stop` is never gated. */
    approval: namedRecord(approvalRuleFile).default({}),
    /** How long a call waits for an operator's approval before it is rejected (expired). */
    approval_timeout_s: positive.max(86_400).default(120),
    /**
     * Hold-to-run (docs/architecture.md, "Operator presence"): with
     * `required: true`, motions are admitted only while an operator console
     * with a named operator is open and heartbeating; when the last one goes
     * quiet for `timeout_ms` mid-motion, the bridge halts the arm.
     */
    operator_presence: z
      .object({
        required: z.boolean(),
        timeout_ms: z.number().int().min(250).max(60_000).default(2000),
      })
      .strict()
      .optional(),
    limits: z
      .object({
        /**
         * The slowest speed (fraction of each axis's max velocity) a call may
         * ask for. Below it a motion is implausibly slow (an 83-hour gripper
         * close), and a tiny speed becomes 0 as a float32 on the wire.
         */
        min_speed: positive.max(1).default(0.05),
        /**
         * The tool frame's largest Cartesian speed along a planned path (m/s);
         * faster plans are slowed down, or refused where that cannot be done
         * (docs/kinematics.md). ISO 10218's reduced speed is 0.25.
         */
        max_tool_speed_mps: positive.optional(),
        /** Motions (every motion tool) the bridge starts per minute, as a token bucket holding at most this many. */
        motions_per_minute: positive.max(100_000).optional(),
      })
      .strict()
      .default({ min_speed: 0.05 }),
    /** Link name → collision volumes in its frame, for links whose URDF has no `<collision>` (or to replace it). */
    link_volumes: linkVolumesFile,
    /** Cameras (docs/cameras.md): `[{name, source, table?, stale_after_ms?, attach_to_results?, sim?}]`. */
    cameras: camerasFileSchema,
    /** What the simulated camera sees: the table and blocks on it. */
    scene: sceneFileSchema,
  })
  .strict()
  .superRefine((cfg, ctx) => {
    checkCameras(cfg.cameras, ctx);
    checkScene(cfg.scene, ctx);
    const names = new Set<string>();
    for (const [i, j] of cfg.arm.joints.entries()) {
      if (names.has(j.name)) ctx.addIssue({ code: "custom", path: ["arm", "joints", i, "name"], message: `duplicate joint ${j.name}` });
      names.add(j.name);
    }
    if (cfg.arm.gripper && names.has(cfg.arm.gripper.name)) {
      ctx.addIssue({ code: "custom", path: ["arm", "gripper", "name"], message: `gripper name ${cfg.arm.gripper.name} is also a joint` });
    }
    const jointsByName = new Map(cfg.arm.joints.map((j) => [j.name, j]));
    const jointList = [...jointsByName.keys()].join(", ");
    const axisList = [...jointsByName.keys(), ...(cfg.arm.gripper ? [cfg.arm.gripper.name] : [])].join(", ");
    for (const [pose, targets] of Object.entries(cfg.arm.named_poses)) {
      for (const [joint, value] of Object.entries(targets)) {
        const j = jointsByName.get(joint);
        if (!j) {
          ctx.addIssue({ code: "custom", path: ["arm", "named_poses", pose, joint], message: `no joint named ${JSON.stringify(joint)}; the arm's joints: ${jointList}` });
        } else if (value < j.min || value > j.max) {
          ctx.addIssue({ code: "custom", path: ["arm", "named_poses", pose, joint], message: `${value} is outside [${j.min}, ${j.max}]` });
        }
      }
    }
    if (cfg.bus) checkServoBus(cfg.bus.protocol, cfg.arm, ctx);
    if (cfg.arm.urdf !== undefined && cfg.arm.robot_description !== undefined) {
      ctx.addIssue({ code: "custom", path: ["arm", "robot_description"], message: "give arm.urdf (a file) or arm.robot_description (a ROS topic), not both" });
    }
    const urdfKey = cfg.arm.urdf !== undefined ? "arm.urdf" : cfg.arm.robot_description !== undefined ? "arm.robot_description" : undefined;
    if (urdfKey !== undefined) {
      if (cfg.arm.base_link === undefined) ctx.addIssue({ code: "custom", path: ["arm", "base_link"], message: `${urdfKey} needs arm.base_link` });
      if (cfg.arm.tip_link === undefined) ctx.addIssue({ code: "custom", path: ["arm", "tip_link"], message: `${urdfKey} needs arm.tip_link` });
    }
    if (cfg.workspace && urdfKey === undefined) {
      ctx.addIssue({ code: "custom", path: ["workspace"], message: "an envelope needs the arm's kinematics: set arm.urdf (or arm.robot_description), arm.base_link and arm.tip_link" });
    }
    if (Object.keys(cfg.link_volumes).length > 0 && urdfKey === undefined) {
      ctx.addIssue({ code: "custom", path: ["link_volumes"], message: "link volumes belong to the links of the arm's URDF: set arm.urdf (or arm.robot_description), arm.base_link and arm.tip_link" });
    }
    if (cfg.limits.max_tool_speed_mps !== undefined && urdfKey === undefined) {
      ctx.addIssue({ code: "custom", path: ["limits", "max_tool_speed_mps"], message: "the tool's speed is computed from the arm's kinematics: set arm.urdf (or arm.robot_description), arm.base_link and arm.tip_link" });
    }
    if (cfg.kinematics === "moveit") {
      if (cfg.moveit === undefined) ctx.addIssue({ code: "custom", path: ["moveit"], message: "kinematics: moveit needs moveit: {group: <planning group>}" });
      if (urdfKey === undefined) ctx.addIssue({ code: "custom", path: ["kinematics"], message: "kinematics: moveit still needs the arm's URDF (arm.urdf or arm.robot_description) for the envelope and the end-effector pose" });
    }
    for (const [tool, rule] of Object.entries(cfg.approval)) {
      if (tool === "stop" && rule !== "never") ctx.addIssue({ code: "custom", path: ["approval", tool], message: "stop is never gated: stopping must always be possible" });
      if (typeof rule === "object") {
        for (const joint of rule.joints) {
          if (!jointsByName.has(joint) && joint !== cfg.arm.gripper?.name) ctx.addIssue({ code: "custom", path: ["approval", tool, "joints"], message: `no axis named ${JSON.stringify(joint)}; the arm's axes: ${axisList}` });
        }
      }
    }
    for (const [i, c] of cfg.arm.controllers.entries()) {
      for (const joint of c.joints) {
        if (!jointsByName.has(joint) && joint !== cfg.arm.gripper?.name) {
          ctx.addIssue({ code: "custom", path: ["arm", "controllers", i, "joints"], message: `no axis named ${JSON.stringify(joint)}; the arm's axes: ${axisList}` });
        }
      }
    }
  })
  .transform((f) => ({
    bus: f.bus ? { protocol: f.bus.protocol, baud: f.bus.baud, calibration: f.bus.calibration } : undefined,
    arm: {
      name: f.arm.name,
      joints: f.arm.joints.map((j) => ({
        name: j.name,
        min: j.min,
        max: j.max,
        maxVelocity: j.max_velocity,
        maxAcceleration: j.max_acceleration,
        home: j.home,
        servo: j.servo
          ? { id: j.servo.id, model: j.servo.model, countsPerRev: j.servo.counts_per_rev, center: j.servo.center, sign: j.servo.sign, rangeMin: j.servo.range_min, rangeMax: j.servo.range_max }
          : undefined,
      })),
      gripper: f.arm.gripper
        ? {
            name: f.arm.gripper.name,
            maxVelocity: f.arm.gripper.max_velocity,
            maxAcceleration: f.arm.gripper.max_acceleration,
            home: f.arm.gripper.home,
            servo: f.arm.gripper.servo
              ? {
                  id: f.arm.gripper.servo.id,
                  model: f.arm.gripper.servo.model,
                  countsPerRev: f.arm.gripper.servo.counts_per_rev,
                  closed: f.arm.gripper.servo.closed,
                  open: f.arm.gripper.servo.open,
                  currentLimit: f.arm.gripper.servo.current_limit,
                  torqueLimit: f.arm.gripper.servo.torque_limit,
                }
              : undefined,
          }
        : undefined,
      namedPoses: f.arm.named_poses,
      controllers: f.arm.controllers,
      urdf: f.arm.urdf,
      baseLink: f.arm.base_link,
      tipLink: f.arm.tip_link,
      robotDescription: f.arm.robot_description ? { topic: f.arm.robot_description.topic, timeoutMs: f.arm.robot_description.timeout_ms } : undefined,
      /** The URDF text read from arm.robot_description at start (set by the ROS transport, never from a file). */
      urdfText: undefined as string | undefined,
    },
    kinematics: f.kinematics,
    moveit: f.moveit
      ? {
          group: f.moveit.group,
          service: f.moveit.service,
          solveTimeoutS: f.moveit.solve_timeout_s,
          callTimeoutMs: f.moveit.call_timeout_ms,
          avoidCollisions: f.moveit.avoid_collisions,
        }
      : undefined,
    /** The `ros2:` section as written (defaults filled in), for the ROS transport. */
    ros2: f.ros2,
    workspace: f.workspace
      ? {
          frame: f.workspace.frame,
          keepIn: f.workspace.keep_in,
          floorZ: f.workspace.floor_z,
          maxStepM: f.workspace.max_step_m,
          keepOut: toKeepOutZones(f.workspace.keep_out),
          allowedContacts: f.workspace.allowed_contacts ?? [],
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
      getCameraImage: f.timeouts_ms.get_camera_image,
      moveToImagePoint: f.timeouts_ms.move_to_image_point,
    },
    observe: {
      budgetMs: f.observe.budget_ms,
      maxMs: f.observe.max_ms,
      queryIntervalMs: f.observe.query_interval_ms,
      pauseMaxMs: f.observe.pause_max_ms,
    },
    staleAfterMs: f.stale_after_ms,
    approval: Object.fromEntries(
      Object.entries(f.approval).map(([tool, rule]): [string, ApprovalRule] => [tool, typeof rule === "string" ? { kind: rule } : { kind: "joints", joints: rule.joints }]),
    ),
    approvalTimeoutMs: f.approval_timeout_s * 1000,
    /** Undefined unless `operator_presence.required` is true: the default bridge needs no console. */
    operatorPresence: f.operator_presence?.required === true ? { timeoutMs: f.operator_presence.timeout_ms } : undefined,
    limits: {
      minSpeed: f.limits.min_speed,
      maxToolSpeedMps: f.limits.max_tool_speed_mps,
      motionsPerMinute: f.limits.motions_per_minute,
    },
    linkVolumes: f.link_volumes,
    cameras: toCameraConfigs(f.cameras),
    scene: toSceneConfig(f.scene),
  }));

/** A tool's approval rule, as the executor applies it. */
export type ApprovalRule = { readonly kind: "never" } | { readonly kind: "always" } | { readonly kind: "joints"; readonly joints: readonly string[] };

export type ArmConfigFile = z.input<typeof armConfigFileSchema>;
export type ArmConfig = z.output<typeof armConfigFileSchema>;
export type JointConfig = ArmConfig["arm"]["joints"][number];
export type GripperConfig = NonNullable<ArmConfig["arm"]["gripper"]>;
export type BusConfig = NonNullable<ArmConfig["bus"]>;
export type JointServoConfig = NonNullable<JointConfig["servo"]>;
export type GripperServoConfig = NonNullable<GripperConfig["servo"]>;
export type WorkspaceConfig = NonNullable<ArmConfig["workspace"]>;
