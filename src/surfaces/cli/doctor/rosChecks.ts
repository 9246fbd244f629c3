import type { ArmConfig } from "../../../config/ArmConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import { createRos2Node } from "../../../transport/ros2/createRos2Node.js";
import { loadRclnodejs, type RclnodejsImporter } from "../../../transport/ros2/loadRclnodejs.js";
import { fail, ok, type DoctorCheck } from "./DoctorCheck.js";
import { checkUrKinematics, checkUrStatus } from "./urChecks.js";

/** A controller as controller_manager's list_controllers service reports it (controller_manager_msgs/msg/ControllerState). */
export interface ListedController {
  readonly name: string;
  readonly state: string;
}

const LIST_CONTROLLERS = "/controller_manager/list_controllers";

/** ROS 2 sourced, rclnodejs loadable, and every controller the arm uses listed `active` by controller_manager. */
export async function checkRos(
  config: ArmConfig,
  env: NodeJS.ProcessEnv,
  importer?: RclnodejsImporter,
): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  if (!env.ROS_DISTRO || !env.AMENT_PREFIX_PATH) {
    out.push(
      fail(
        "ros",
        "no ROS 2 environment in this shell (ROS_DISTRO / AMENT_PREFIX_PATH unset)",
        "source /opt/ros/<distro>/setup.bash (and your workspace's install/setup.bash) in this shell",
      ),
    );
    if (!importer) return out;
  } else {
    out.push(ok("ros", `ROS 2 ${env.ROS_DISTRO} is sourced`));
  }
  let rcl;
  try {
    rcl = await loadRclnodejs({ env, ...(importer ? { importer } : {}) });
    out.push(ok("rclnodejs", "loads"));
  } catch (error) {
    out.push(
      fail(
        "rclnodejs",
        isArmbridgeError(error) ? error.message : String(error),
        "allow rclnodejs's install script in package.json allowScripts, then `npm rebuild rclnodejs` with ROS sourced",
      ),
    );
    return out;
  }
  let handle;
  try {
    handle = await createRos2Node(rcl, { config, argv: ["armbridge-doctor"] });
  } catch (error) {
    out.push(
      fail(
        "controllers",
        `the ROS node did not start: ${isArmbridgeError(error) ? error.message : String(error)}`,
        "check the ROS parameters (--params-file) against docs/ros2.md",
      ),
    );
    return out;
  }
  try {
    const wanted = handle.setup.controllers.map((c) => c.name);
    const client = handle.node.createClient("controller_manager_msgs/srv/ListControllers", LIST_CONTROLLERS);
    if (!(await client.waitForService(3000))) {
      out.push(
        fail(
          "controllers",
          `${LIST_CONTROLLERS} does not answer: no controller_manager on this ROS graph (or another ROS_DOMAIN_ID)`,
          "start the robot's bringup (ros2_control_node and its spawners); check ROS_DOMAIN_ID matches",
        ),
      );
      return out;
    }
    const answer = await new Promise<unknown>((resolve) => client.sendRequest({}, resolve));
    const listed = ((answer as { controller?: unknown[] } | undefined)?.controller ?? []).map((c) => ({
      name: String((c as { name?: unknown }).name),
      state: String((c as { state?: unknown }).state),
    }));
    out.push(judgeControllers(wanted, listed));
    out.push(...(await checkUrStatus(rcl, handle.node)));
    out.push(...(await checkUrKinematics(rcl, handle.node, handle.config)));
  } finally {
    handle.shutdown();
  }
  return out;
}

/** Every controller the arm config uses must be listed, and `active` (ros2_control's lifecycle: an inactive JTC rejects goals). */
export function judgeControllers(wanted: readonly string[], listed: readonly ListedController[]): DoctorCheck {
  const problems: string[] = [];
  for (const name of wanted) {
    const c = listed.find((l) => l.name === name);
    if (!c) problems.push(`${name} is not loaded`);
    else if (c.state !== "active") problems.push(`${name} is ${c.state}`);
  }
  if (problems.length > 0) {
    return fail(
      "controllers",
      `${problems.join("; ")} (controller_manager lists ${listed.map((l) => `${l.name}: ${l.state}`).join(", ") || "none"})`,
      `ros2 control load_controller --set-state active NAME, or ros2 control set_controller_state NAME active`,
    );
  }
  return ok("controllers", `${wanted.join(", ")} active`);
}
