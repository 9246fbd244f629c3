import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";
import type { GoalServer } from "./GoalRun.js";
import type { ProbeDeps } from "./probeRosGraph.js";
import type { Rclnodejs, RclNode } from "./rclTypes.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";

export interface Ros2TransportDeps {
  readonly rcl: Rclnodejs;
  /** A node that is already spinning (createRos2Node). */
  readonly node: RclNode;
  /** The arm config as resolved with resolveRos2Setup. */
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Delays between checks of a lost graph. Default 100 ms doubling to 500 ms (a check is cheap). */
  readonly backoff?: BackoffOptions | undefined;
  /** Try to get a lost graph back (default true). false: a lost graph stays `down` until the bridge restarts. */
  readonly reconnect?: boolean | undefined;
  /** Replaces where package versions are read from (tests); see probeRosGraph. */
  readonly packageVersion?: ProbeDeps["packageVersion"];
}

/** FollowJointTrajectory / gripper feedback for progress reporting. */
export interface Ros2Feedback {
  readonly actionId: string;
  readonly server: GoalServer;
  /** The raw feedback message (FJT: joint_names, desired, actual, error). */
  readonly feedback: unknown;
}
