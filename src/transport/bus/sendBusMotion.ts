import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import type { LinkLifecycle } from "../link/LinkLifecycle.js";
import { refuseUnsendable } from "../motionProblem.js";
import type { ArmStatus, MotionCommand, MotionEnd } from "../Transport.js";
import type { BusChannel } from "./BusChannel.js";
import type { BusMotions } from "./BusMotions.js";
import type { BusServos } from "./BusServos.js";
import type { BusProtocol } from "../../protocol/bus/index.js";
import { decodeRegister, type ServoControlTable } from "../../protocol/bus/index.js";
import { countOf } from "../../protocol/bus/servoAxes.js";
import type { ServoState } from "./ServoState.js";

export interface BusMotionContext {
  readonly kind: string;
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly servos: BusServos;
  readonly motions: BusMotions;
  readonly link: LinkLifecycle;
  readonly log: Logger;
  readonly now: () => number;
  readonly staleAfterMs: number;
  readonly latest: () => ArmStatus | undefined;
  /** The next status the status cycle publishes, or undefined if `signal` fires first. */
  readonly nextStatus: (signal: AbortSignal) => Promise<ArmStatus | undefined>;
  /** Aborted when the link drops: every wait on a motion ends then (link_error), the motions are left to observation. */
  readonly interrupted: () => AbortSignal;
  readonly closed: () => boolean;
}

/**
 * One motion on a servo bus: checked like on every transport (the link
 * connected, the targets within limits as whole counts), one sync write of
 * the goals with profile velocity and acceleration from `speed` — never sent
 * again, since a bus has no de-duplication and a second write could be a
 * second motion — then the goal registers read back, then the status cycle's
 * judgement. Never rejects.
 */
export async function sendBusMotion(
  c: BusMotionContext,
  command: MotionCommand,
  signal: AbortSignal,
): Promise<MotionEnd> {
  if (c.closed())
    return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: c.kind }) };
  // The same id again is the same motion: wait on it, never write its goals twice.
  const existing = c.motions.get(command.actionId);
  if (existing) return c.motions.await(existing, signal, c.interrupted(), c.closed);
  const unsendable = refuseUnsendable(
    command,
    (axis) => (c.servos.byName.has(axis) ? c.servos.actuators.get(axis) : undefined),
    {
      transport: c.kind,
      link: c.link.snapshot(),
      wire: c.servos.wire,
    },
  );
  if (unsendable) return unsendable;
  const status = await freshStatus(c, signal);
  if (!status) {
    return {
      kind: "refused",
      reason: "no fresh servo readings to plan from",
      error: new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: c.kind }),
    };
  }
  const planned = goalWrites(c, command, status);
  if ("kind" in planned) return planned;
  const { entries, goals, start } = planned;
  const track = c.motions.create(command, goals, start);
  const log = c.log.child({ action_id: command.actionId });
  // Once, and never again: a bus has no de-duplication, so a second write could be a second motion.
  const sent = await c.channel.syncWrite("motionBlock", entries);
  if (!sent) {
    // The port closed before the bytes left: no servo heard them.
    c.motions.unsent(track, "the link closed before the goals were written; nothing was sent");
    return {
      kind: "refused",
      reason: track.record.detail ?? "not sent",
      error: new ArmbridgeError("ARMB_ERR_LINK_DOWN", {
        transport: c.kind,
        state: c.link.state,
        detail: "the link closed before the goals were written",
      }),
    };
  }
  log.info({ goals: Object.fromEntries(goals) }, "goals written (sync write, not repeated)");
  track.phase = "unconfirmed";
  return c.motions.await(track, signal, c.interrupted(), c.closed);
}

/**
 * A status no older than stale_after_ms to plan from; undefined when none
 * came. A fresh one is a cycle or two away (a read missed while this
 * process was busy leaves one servo's sample old for a cycle).
 */
async function freshStatus(c: BusMotionContext, signal: AbortSignal): Promise<ArmStatus | undefined> {
  const fresh = (s: ArmStatus | undefined): s is ArmStatus => s !== undefined && c.now() - s.stampMs <= c.staleAfterMs;
  let status = c.latest();
  if (!fresh(status)) {
    const wait = AbortSignal.any([signal, AbortSignal.timeout(2 * c.staleAfterMs)]);
    while (!fresh(status) && !wait.aborted) status = (await c.nextStatus(wait)) ?? status;
  }
  return fresh(status) ? status : undefined;
}

interface GoalWrites {
  readonly entries: { id: number; data: Uint8Array }[];
  readonly goals: Map<number, number>;
  readonly start: Record<string, number>;
}

/** Each servo's goal, profile velocity and acceleration as one sync write's entries; a refusal when a servo cannot take its goal. */
function goalWrites(c: BusMotionContext, command: MotionCommand, status: ArmStatus): GoalWrites | MotionEnd {
  const t = c.protocol.table;
  const out: GoalWrites = { entries: [], goals: new Map(), start: {} };
  for (const [axis, target] of Object.entries(command.targets)) {
    const s = c.servos.byName.get(axis)!;
    const a = c.servos.actuators.get(axis)!;
    if (s.tripped) {
      const error = new ArmbridgeError("ARMB_ERR_SERVO_TRIPPED", { servo: s.axis.id, joint: axis, errors: s.tripped });
      return { kind: "refused", reason: error.message, error };
    }
    const goal = Math.round(countOf(s.axis, target));
    const refusal = s.armed ? outsidePositionLimits(t, s, goal) : `servo ${s.axis.id} (${axis}) has torque off`;
    if (refusal)
      return {
        kind: "refused",
        reason: refusal,
        error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: command.actionId, reason: refusal }),
      };
    const perUnit = Math.abs(s.axis.countsPerUnit);
    const velocity = clampUnits(
      (command.speed * a.maxVelocity * perUnit) / t.profileVelocityUnit,
      t.maxProfileVelocityUnits,
    );
    const acceleration = clampUnits(
      (a.maxAcceleration * perUnit) / t.profileAccelerationUnit,
      t.maxProfileAccelerationUnits,
    );
    out.entries.push({ id: s.axis.id, data: t.encodeMotion(goal, velocity, acceleration) });
    out.goals.set(s.axis.id, goal);
    out.start[axis] = status.axes[axis]?.position ?? Number.NaN;
  }
  return out;
}

function clampUnits(units: number, max: number): number {
  return Math.min(max, Math.max(1, Math.round(units)));
}

/**
 * A goal the servo itself would not take, in words; undefined when it would.
 * In position mode a servo bounds goals by its own Min / Max_Position_Limit
 * (read with its limits on the status loop's slow schedule): a Dynamixel X
 * refuses the write (Data Limit Error — after a sync write, silently), a
 * Feetech stops at the limit. Either way the arm would not do what the
 * bridge was asked, so nothing is sent. LeRobot writes a calibration's
 * range into these registers (write_calibration); a servo in current-based
 * position mode (a Dynamixel gripper with a current cap) is not bounded by them.
 */
function outsidePositionLimits(t: ServoControlTable, s: ServoState, goal: number): string | undefined {
  if (s.limitsAt === 0) return undefined;
  if (s.axis.gripLimit?.currentLimit !== undefined && t.currentBasedPositionMode !== undefined) return undefined;
  const lo = decodeRegister(t.setup.minPositionLimit, s.memory, t.setup.minPositionLimit.address);
  const hi = decodeRegister(t.setup.maxPositionLimit, s.memory, t.setup.maxPositionLimit.address);
  if (lo === undefined || hi === undefined || lo > hi || (goal >= lo && goal <= hi)) return undefined;
  const does = t.setup.goalOutsideLimits.kind === "refused" ? "would refuse" : "would stop short of";
  return `servo ${s.axis.id} (${s.axis.name}) ${does} count ${goal}: its own Min/Max_Position_Limit are ${lo}..${hi}; nothing was sent (narrow the joint's travel in the config, or set the servo's limits to cover it)`;
}
