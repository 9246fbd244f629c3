import type { Logger } from "pino";
import type { GoalServer } from "./GoalRun.js";
import {
  ACTION_FOLLOW_JOINT_TRAJECTORY,
  ACTION_GRIPPER_COMMAND,
  ACTION_PARALLEL_GRIPPER_COMMAND,
  type Rclnodejs,
  type RclActionClient,
  type RclNode,
} from "./rclTypes.js";
import type { Ros2Setup, TrajectoryControllerSetup } from "./resolveRos2Setup.js";

/** The lock-table style key of a server: `controller:<name>` or `gripper`. */
export function serverKey(server: GoalServer): string {
  return server.kind === "gripper" ? "gripper" : `controller:${server.controller}`;
}

export function sameServer(a: GoalServer, b: GoalServer): boolean {
  return a.kind === b.kind && (a.kind === "gripper" || (b.kind === "trajectory" && a.controller === b.controller));
}

/**
 * The action servers armbridge talks to (one JTC per arm controller, one
 * gripper controller) and their rclnodejs clients: which server drives an
 * axis, which axes a server drives, its action name.
 */
export class ServerRegistry {
  readonly #setup: Ros2Setup;
  readonly #trajectoryClients = new Map<string, RclActionClient>();
  #gripperClient: RclActionClient | undefined;

  constructor(setup: Ros2Setup) {
    this.#setup = setup;
  }

  /** Creates one action client per server (idempotent). */
  createClients(rcl: Rclnodejs, node: RclNode): void {
    if (this.#trajectoryClients.size > 0 || this.#gripperClient) return;
    for (const c of this.#setup.controllers) {
      this.#trajectoryClients.set(c.name, new rcl.ActionClient(node, ACTION_FOLLOW_JOINT_TRAJECTORY, c.actionName));
    }
    const g = this.#setup.gripper;
    if (g) {
      const type = g.kind === "parallel_gripper" ? ACTION_PARALLEL_GRIPPER_COMMAND : ACTION_GRIPPER_COMMAND;
      this.#gripperClient = new rcl.ActionClient(node, type, g.actionName);
    }
  }

  destroyClients(log: Logger): void {
    for (const [name, client] of this.clients()) {
      try {
        client.destroy();
      } catch (error) {
        log.warn({ server: name, err: error }, "destroying action client failed");
      }
    }
  }

  /** The servers driving these axes, each once, in first-seen order. */
  serversFor(axes: Iterable<string>): GoalServer[] {
    const out: GoalServer[] = [];
    const seen = new Set<string>();
    for (const axis of axes) {
      let server: GoalServer | undefined;
      if (this.#setup.gripper && axis === this.#setup.gripper.axis) server = { kind: "gripper" };
      else {
        const c = this.#setup.controllerOfJoint.get(axis);
        if (c) server = { kind: "trajectory", controller: c.name };
      }
      if (server && !seen.has(serverKey(server))) {
        seen.add(serverKey(server));
        out.push(server);
      }
    }
    return out;
  }

  axesOf(server: GoalServer): readonly string[] {
    if (server.kind === "gripper") return this.#setup.gripper ? [this.#setup.gripper.axis] : [];
    return this.controllerOf(server)?.joints ?? [];
  }

  controllerOf(server: GoalServer): TrajectoryControllerSetup | undefined {
    return server.kind === "trajectory" ? this.#setup.controllers.find((c) => c.name === server.controller) : undefined;
  }

  clientOf(server: GoalServer): RclActionClient | undefined {
    return server.kind === "gripper" ? this.#gripperClient : this.#trajectoryClients.get(server.controller);
  }

  actionNameOf(server: GoalServer): string {
    if (server.kind === "gripper") return this.#setup.gripper?.actionName ?? "gripper";
    return this.controllerOf(server)?.actionName ?? server.controller;
  }

  *clients(): Iterable<[string, RclActionClient]> {
    yield* this.#trajectoryClients;
    if (this.#gripperClient) yield ["gripper", this.#gripperClient];
  }
}
