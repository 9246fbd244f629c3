import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import type { ArmStatus, HaltResult } from "../Transport.js";
import type { ActionTracker } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import { buildTrajectoryGoal, type JointLimits } from "./buildTrajectoryGoal.js";
import type { GoalRun, GoalServer } from "./GoalRun.js";
import { buildGripperGoal } from "./gripperMapping.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { CancelGoalResponse } from "./rclTypes.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";
import { serverKey, type ServerRegistry } from "./ServerRegistry.js";
import { stoppingPlan } from "./stoppingPlan.js";

/** action_msgs/srv/CancelGoal return codes that mean "nothing left to stop". */
const CANCEL_ERROR_NONE = 0;
const CANCEL_ERROR_GOAL_TERMINATED = 3;

export interface HalterDeps {
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly servers: ServerRegistry;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly limits: ReadonlyMap<string, JointLimits>;
  readonly log: Logger;
  readonly now: () => number;
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
}

/**
 * Stops motion. Cancels the goals we own on the affected controllers: JTC
 * then holds the current position itself (or decelerates, with
 * decelerate_on_cancel), which is smoother and more exact than a hold goal
 * built from a /joint_states sample that already lags the arm. Only when a
 * controller is moving under a goal we do not own (another client, e.g.
 * MoveIt) do we preempt it with a hold goal, aimed at where the arm can stop
 * under its acceleration limit (stoppingPlan), since we cannot cancel that goal.
 */
export class Halter {
  readonly #d: HalterDeps;
  /** Halts per server (serverKey): a goal still waiting for its server when a halt came is never sent. */
  readonly #halts = new Map<string, number>();

  constructor(deps: HalterDeps) {
    this.#d = deps;
  }

  /** How many halts have hit this server so far. */
  count(server: GoalServer): number {
    return this.#halts.get(serverKey(server)) ?? 0;
  }

  async halt(axes: readonly string[], signal: AbortSignal): Promise<HaltResult> {
    const { servers } = this.#d;
    const targets = servers.serversFor(axes);
    for (const s of targets) this.#halts.set(serverKey(s), this.count(s) + 1);
    const affectedAxes = new Set<string>();
    for (const s of targets) for (const a of servers.axesOf(s)) affectedAxes.add(a);
    const failures = await this.#d.bounded([signal, AbortSignal.timeout(this.#d.setup.options.cancelTimeoutMs)], async (wait) => {
      const requests: Promise<string | undefined>[] = [];
      for (const server of targets) {
        const ours = this.#d.tracker.activeRuns(server);
        if (ours.length > 0) {
          for (const run of ours) requests.push(this.#cancel(run, wait));
        } else if (servers.axesOf(server).some((a) => this.#d.observer.latest()?.axes[a]?.moving)) {
          requests.push(this.#sendHold(server, wait));
        }
      }
      return (await Promise.all(requests)).filter((f): f is string => f !== undefined);
    });
    const stopped = await this.#d.bounded([signal], (wait) =>
      this.#d.observer.waitFor((s) => [...affectedAxes].every((a) => s.axes[a] !== undefined && !s.axes[a].moving), wait),
    );
    const status: ArmStatus | undefined = stopped ?? this.#d.observer.latest();
    if (failures.length > 0) {
      return { halted: false, status, error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: "halt", reason: failures.join("; ") }) };
    }
    return { halted: stopped !== undefined, status };
  }

  async #cancel(run: GoalRun, signal: AbortSignal): Promise<string | undefined> {
    if (!run.handle && run.phase === "sending") {
      // Our goal request is still unanswered: the goal may yet be accepted and
      // move the arm, so wait for the answer and cancel what was accepted.
      const answered = await awaitWithin(run.responded, signal);
      if (answered.kind === "aborted") return `${run.actionName} had not answered our goal request when the halt stopped waiting; the goal may still start`;
    }
    if (run.phase === "lost") return `lost track of our goal on ${run.actionName}; it may still run`;
    const handle = run.handle;
    if (!handle || run.phase === "rejected") return undefined;
    let response: Promise<CancelGoalResponse>;
    try {
      response = handle.cancelGoal();
    } catch (error) {
      return `cancel on ${run.actionName} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(response, signal);
    if (r.kind === "aborted") return run.terminal ? undefined : `${run.actionName} did not answer the cancel request in time`;
    if (r.kind === "error") return `cancel on ${run.actionName} failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`;
    const code = r.value.return_code;
    if (code === CANCEL_ERROR_NONE) run.cancelAcceptedMs ??= this.#d.now();
    if (code === CANCEL_ERROR_NONE || code === CANCEL_ERROR_GOAL_TERMINATED || run.terminal) return undefined;
    return `${run.actionName} refused to cancel (return_code ${code})`;
  }

  async #sendHold(server: GoalServer, signal: AbortSignal): Promise<string | undefined> {
    const { servers, setup, config } = this.#d;
    const status = this.#d.observer.latest();
    const client = servers.clientOf(server);
    const name = servers.actionNameOf(server);
    if (!status || !client) return `no status to hold ${name} at`;
    let goal: object;
    const controller = servers.controllerOf(server);
    if (controller) {
      const joints = controller.joints.map((j) => this.#d.actuators.get(j));
      if (joints.some((j) => j === undefined)) return `no limits for every joint of ${controller.name}`;
      const plan = stoppingPlan(joints as Actuator[], status.axes, (this.#d.now() - status.stampMs) / 1000, setup.options.minMotionS);
      if (!plan) return `no position for every joint of ${controller.name}`;
      goal = buildTrajectoryGoal({
        joints: controller.joints,
        targets: plan.targets,
        current: plan.targets,
        limits: this.#d.limits,
        speed: 1,
        positionTolerance: config.tolerances.position,
        velocityTolerance: setup.options.goalVelocityTolerance,
        goalTimeToleranceS: setup.options.goalTimeToleranceS,
        minMotionS: setup.options.minMotionS,
        durationS: plan.durationS,
      }).goal;
    } else {
      const g = setup.gripper;
      const p = g ? status.axes[g.axis]?.position : undefined;
      if (!g || p === undefined) return "no gripper position to hold at";
      goal = buildGripperGoal(g, p);
    }
    this.#d.log.warn({ server: name }, "moving under a goal we do not own: preempting it with a hold goal at the stopping point");
    let sent: Promise<{ isAccepted(): boolean }>;
    try {
      sent = client.sendGoal(goal);
    } catch (error) {
      return `hold goal on ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(sent, signal);
    if (r.kind === "value" && r.value.isAccepted()) return undefined;
    return `hold goal on ${name} was ${r.kind === "value" ? "rejected" : "not answered"}`;
  }
}
