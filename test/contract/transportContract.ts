import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import type { ArmStatus, Transport } from "../../src/transport/Transport.js";
import { linkLossCases, type LinkLossCases } from "./linkLossCases.js";

/** One arm behind a Transport, with the arm's own ground truth to judge the bridge by. */
export interface ContractArm {
  /** The effective config (tools and lock keys are built from it). */
  readonly config: ArmConfig;
  /** Opened and streaming status. */
  readonly transport: Transport;
  /** Physical motions the arm started so far, as the arm saw them (firmware: motion_start events; ROS: goals accepted). */
  motionStarts(): number;
  /** Motions that overlapped on a shared axis, or were cut short by another motion (preemption). */
  conflicts(): number;
  /** The arm's own ways to lose its link, for the link-loss cases; absent: those cases do not apply (said in their names). */
  readonly faults?: LinkFaults;
  close(): Promise<void>;
}

/** How an arm loses its link and comes back, as the link-loss cases need it. */
export interface LinkFaults {
  /** The link goes away for `ms`, the arm running on (a pulled cable, a killed bridge process, a network partition). */
  dropLink(ms: number): Promise<void>;
  /** The arm loses power for `ms` and comes back as a new incarnation (torque off, a new boot, restarted controllers). */
  powerLoss(ms: number): Promise<void>;
  /** Another arm answers where this one was (other ids, models, joints or limits), from now on. */
  replaceWithOtherDevice(): Promise<void>;
  /** Motions the replacement started: it must never be driven. */
  otherDeviceMotions(): number;
}

/** What the factory is asked for. */
export interface ContractArmOptions {
  /**
   * Whether the transport tries to get a lost link back. The suite always
   * asks for true; `ARMBRIDGE_CONTRACT_NO_RECONNECT=1` asks for false, to
   * prove the link-loss cases fail without it.
   */
  readonly reconnect: boolean;
}

const RECONNECT = process.env.ARMBRIDGE_CONTRACT_NO_RECONNECT !== "1";

/**
 * The transport contract: the same guarantees, checked the same way, on every
 * path to an arm (serial firmware via firmware-sim, ROS 2 via the rclnodejs
 * double). serialport does the same with one suite over its mock and real
 * bindings.
 *
 * `slowMove` must name a move that takes well over 300 ms on this arm, so a
 * 100 ms deadline fires mid-motion.
 */
export function transportContract(
  name: string,
  create: (options: ContractArmOptions) => Promise<ContractArm>,
  moves: {
    readonly slowMove: Record<string, number>;
    readonly quickMove: Record<string, number>;
    readonly otherJointMove: Record<string, number>;
  },
  linkLoss: LinkLossCases | undefined = undefined,
): void {
  describe(`transport contract: ${name}`, () => {
    let arm: ContractArm;
    let ledger: IntentLedger;
    let executor: Executor;

    beforeEach(async () => {
      arm = await create({ reconnect: RECONNECT });
      ledger = IntentLedger.open(":memory:");
      executor = composeExecutor({
        config: arm.config,
        registry: createDefaultTools(arm.config),
        transport: arm.transport,
        ledger,
      });
    });
    afterEach(async () => {
      executor.close();
      await arm.close();
      ledger.close();
    });

    it("link state: connected once open, with the newest status's time; listeners hear `down` on close, once", async () => {
      const link = arm.transport.linkState();
      expect(link.state).toBe("connected");
      expect(link.since).toBeLessThanOrEqual(Date.now());
      expect(link.last_status_at).toBeGreaterThan(0);
      const heard: string[] = [];
      arm.transport.onLinkState((s) => heard.push(s.state));
      await arm.transport.close();
      expect(arm.transport.linkState().state).toBe("down");
      expect(heard).toEqual(["down"]);
    });

    it("a move reaches its target: done by completion, the pose within tolerance, one motion", async () => {
      const [r] = await executor.execute([{ id: "m1", name: "move_joints", args: { positions: moves.quickMove } }], {
        deadlineMs: 20_000,
      });
      expect(r!.result).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
      const actionId = r!.result.status === "done" ? r!.result.action_id! : "";
      expect(arm.motionStarts()).toBe(1);
      const status = arm.transport.latestStatus()!;
      for (const [joint, target] of Object.entries(moves.quickMove))
        expect(Math.abs(status.axes[joint]!.position - target)).toBeLessThanOrEqual(arm.config.tolerances.position);
      const record = await arm.transport.queryAction(actionId, {
        voidIfUnknown: false,
        signal: AbortSignal.timeout(2000),
      });
      expect(record?.state).toBe("reached");
    });

    it("a timeout ends only our wait: the motion goes on, is observed reaching its target, and is never re-sent", async () => {
      const [r] = await executor.execute(
        [{ id: "m1", name: "move_joints", args: { positions: moves.slowMove, speed: 0.2 } }],
        { deadlineMs: 100 },
      );
      expect(r!.result).toMatchObject({ status: "done", settled_by: "observation", timed_out: true });
      expect(arm.motionStarts()).toBe(1);
      expect(arm.conflicts()).toBe(0);
    });

    it("the same command sent twice (same action id) moves the arm once", async () => {
      const command = { actionId: `act_contract_${Date.now().toString(36)}`, targets: moves.quickMove, speed: 0.5 };
      const first = await arm.transport.runMotion(command, AbortSignal.timeout(20_000));
      expect(first.kind).toBe("ended");
      await arm.transport.runMotion(command, AbortSignal.timeout(1000));
      expect(arm.motionStarts()).toBe(1);
    });

    it("calls sharing a joint queue, others run; nothing overlaps or preempts", async () => {
      // An arm without a gripper (a bare UR) runs the same queue without the gripper call.
      const gripper = arm.config.arm.gripper ? [{ id: "g", name: "set_gripper", args: { position: 0.3 } }] : [];
      const out = await executor.execute(
        [
          { id: "a", name: "move_joints", args: { positions: moves.quickMove } },
          {
            id: "b",
            name: "move_joints",
            args: {
              positions: Object.fromEntries(
                Object.keys(moves.quickMove).map((j) => [j, arm.config.arm.joints.find((x) => x.name === j)!.home]),
              ),
            },
          },
          { id: "c", name: "move_joints", args: { positions: moves.otherJointMove } },
          ...gripper,
        ],
        { deadlineMs: 40_000 },
      );
      expect(
        out.map((o) => o.result.status),
        JSON.stringify(out.map((o) => o.result)),
      ).toEqual(out.map(() => "done"));
      expect(arm.conflicts()).toBe(0);
      expect(arm.motionStarts()).toBe(out.length);
    });

    it("stop halts a motion under way: the halt latches, the cut-short call is stopped at the reported pose, nothing moves until an operator releases it", async () => {
      const start = arm.transport.latestStatus()!;
      const moving = executor.execute(
        [{ id: "m", name: "move_joints", args: { positions: moves.slowMove, speed: 0.2 } }],
        { deadlineMs: 20_000 },
      );
      // Until the arm has visibly moved (beyond the position tolerance): soon on a full-speed arm, later behind a speed slider.
      const moved = (s: ArmStatus | undefined): boolean =>
        Object.keys(moves.slowMove).some(
          (j) =>
            Math.abs((s?.axes[j]?.position ?? 0) - (start.axes[j]?.position ?? 0)) > 2 * arm.config.tolerances.position,
        );
      for (const until = Date.now() + 15_000; !moved(arm.transport.latestStatus()) && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 20));
      expect(moved(arm.transport.latestStatus())).toBe(true);
      const [stop] = await executor.execute([{ id: "s", name: "stop", args: {} }]);
      expect(stop!.result).toMatchObject({ status: "done" });
      const [m] = await moving;
      // The arm confirmed the halt: it explains the short motion, no operator is asked.
      expect(m!.result.status).toBe("stopped");
      expect(m!.result.status === "stopped" && m!.result.pose).toBeTruthy();
      expect(executor.quarantine.byResource().size).toBe(0);
      const [blocked] = await executor.execute([
        { id: "again", name: "move_joints", args: { positions: moves.slowMove } },
      ]);
      expect(blocked!.result).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
      executor.releaseHalt({ operator: "contract-suite" });
      const [after] = await executor.execute(
        [{ id: "after", name: "move_joints", args: { positions: moves.quickMove } }],
        { deadlineMs: 20_000 },
      );
      expect(after!.result.status).toBe("done");
      // The interrupted motion was not re-sent, and nothing moved while latched: one start for it, one for the move after release.
      expect(arm.motionStarts()).toBe(2);
    });

    linkLossCases(() => ({ arm, ledger, executor }), moves, linkLoss);
  });
}
