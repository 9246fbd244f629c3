import { ArmbridgeError } from "../../errors.js";
import type { Rclnodejs } from "./rclTypes.js";

export type RclnodejsImporter = () => Promise<unknown>;

export interface LoadRclnodejsOptions {
  /** Replaces `import("rclnodejs")`; tests pass one that yields the double or throws. */
  readonly importer?: RclnodejsImporter;
  readonly env?: NodeJS.ProcessEnv;
}

const importRclnodejs: RclnodejsImporter = () => import("rclnodejs");

/**
 * Loads rclnodejs only when the ROS transport is chosen: it is an optional
 * dependency, its native addon needs a sourced ROS 2, and importing it installs
 * a SIGINT handler. Any failure becomes ARMB_ERR_ROS_UNAVAILABLE, whose message
 * says how to fix it.
 *
 * Without a sourced ROS 2 we do not even try the import: rclnodejs 2.x, when no
 * prebuilt addon matches, runs `npm run rebuild` from inside `import`, which
 * cannot succeed without ROS headers and takes a while to fail.
 */
export async function loadRclnodejs(options: LoadRclnodejsOptions = {}): Promise<Rclnodejs> {
  const env = options.env ?? process.env;
  if (!options.importer && (!env.ROS_DISTRO || !env.AMENT_PREFIX_PATH)) {
    throw new ArmbridgeError("ARMB_ERR_ROS_UNAVAILABLE", {
      reason: "no ROS 2 environment: ROS_DISTRO or AMENT_PREFIX_PATH is not set",
    });
  }
  let mod: unknown;
  try {
    mod = await (options.importer ?? importRclnodejs)();
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
    throw new ArmbridgeError("ARMB_ERR_ROS_UNAVAILABLE", { reason }, { cause: error });
  }
  const rcl = (mod as { default?: unknown }).default ?? mod;
  if (!isRclnodejs(rcl)) {
    throw new ArmbridgeError("ARMB_ERR_ROS_UNAVAILABLE", {
      reason: "the rclnodejs module does not have init, Node, ActionClient and Parameter",
    });
  }
  return rcl;
}

function isRclnodejs(value: unknown): value is Rclnodejs {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return ["init", "Node", "ActionClient", "Parameter", "shutdown"].every((k) => typeof v[k] === "function");
}
