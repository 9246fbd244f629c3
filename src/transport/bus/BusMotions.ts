import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import type { ActionRecord, ArmActionState, MotionEnd } from "../Transport.js";
import type { BusChannel } from "./BusChannel.js";
import type { BusServos } from "./BusServos.js";
import { decodeRegister, type BusProtocol } from "../../protocol/bus/index.js";
import type { ServoState } from "./ServoState.js";
import type { StatusSchedule } from "./StatusSchedule.js";

type TrackPhase = "sending" | "unconfirmed" | "running" | "ended";

/** One motion on the bus: the goals written once, and what has been seen of it since. */
export interface BusTrack {
  readonly actionId: string;
  readonly axes: readonly string[];
  readonly goals: ReadonlyMap<number, number>;
  readonly start: Readonly<Record<string, number>>;
  readonly targets: Readonly<Record<string, number>>;
  readonly incarnation: string;
  phase: TrackPhase;
  confirmedAt: number;
  stillSamples: number;
  halted: boolean;
  record: ActionRecord;
  readonly ended: Promise<void>;
  end: () => void;
}

export interface BusMotionsDeps {
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly servos: BusServos;
  readonly schedule: StatusSchedule;
  readonly log: Logger;
  readonly now: () => number;
  readonly readAttempts: number;
  /** The bus's incarnation now (power losses seen so far). */
  readonly incarnation: () => string;
  /** One read of every status block. */
  readonly readAll: () => Promise<void>;
  readonly transportKind: string;
}

const MAX_TRACKS = 256;
const STATUS_ACTIONS = 16;

/**
 * The motions this process wrote to the bus, and the judgement of each from
 * the status reads: a bus has no action ids and no memory of its own, so
 * these records are all there is to ask.
 * - after the one goal write, the goal registers are read back (reads may be
 *   retried): not our target on any servo, none moved → positive evidence
 *   nothing was commanded; our target → judged on the status cycle;
 * - a servo found with torque off that we had armed lost power: motions on it
 *   become `unknown` (the incarnation changed).
 */
export class BusMotions {
  readonly #deps: BusMotionsDeps;
  readonly #tracks = new Map<string, BusTrack>();

  constructor(deps: BusMotionsDeps) {
    this.#deps = deps;
  }

  get(actionId: string): BusTrack | undefined {
    return this.#tracks.get(actionId);
  }

  /** Action ids of the motions not yet ended (what a loss of the link leaves in flight). */
  inFlight(): string[] {
    return [...this.#tracks.values()].filter((t) => t.phase !== "ended").map((t) => t.actionId);
  }

  busyOn(axis: string): boolean {
    return [...this.#tracks.values()].some((t) => t.phase !== "ended" && t.axes.includes(axis));
  }

  /** The newest records, for the status's `actions`. */
  records(): ActionRecord[] {
    return [...this.#tracks.values()].slice(-STATUS_ACTIONS).map((t) => t.record);
  }

  create(
    command: { readonly actionId: string; readonly targets: Readonly<Record<string, number>> },
    goals: ReadonlyMap<number, number>,
    start: Readonly<Record<string, number>>,
  ): BusTrack {
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const track: BusTrack = {
      actionId: command.actionId,
      axes: Object.keys(command.targets),
      goals,
      start,
      targets: command.targets,
      incarnation: this.#deps.incarnation(),
      phase: "sending",
      confirmedAt: Infinity,
      stillSamples: 0,
      halted: false,
      record: { actionId: command.actionId, state: "executing", moved: undefined },
      ended,
      end,
    };
    this.#tracks.set(track.actionId, track);
    if (this.#tracks.size > MAX_TRACKS) {
      for (const [id, t] of this.#tracks) {
        if (this.#tracks.size <= MAX_TRACKS) break;
        if (t.phase === "ended") this.#tracks.delete(id);
      }
    }
    return track;
  }

  /** The goal write never left (the link was closed): nothing was commanded. */
  unsent(track: BusTrack, why: string): void {
    track.phase = "ended";
    track.record = { actionId: track.actionId, state: "rejected", moved: false, detail: why };
    track.end();
  }

  /**
   * Reads the goal registers back after the one write. Reads may be retried.
   * `not_commanded` only when no servo holds our goal, none moved and none lost
   * power: then the write never landed and never will (a bus has no queue).
   */
  async confirm(track: BusTrack): Promise<"commanded" | "not_commanded" | "no_answer" | "lost"> {
    const { protocol, channel } = this.#deps;
    const t = protocol.table;
    const ids = [...track.goals.keys()];
    const got = new Map<number, number>();
    for (let attempt = 0; attempt < this.#deps.readAttempts && got.size < ids.length; attempt++) {
      const missing = ids.filter((id) => !got.has(id));
      const { byId } = await channel.syncRead(missing, "goalPosition");
      for (const [id, r] of byId) got.set(id, decodeRegister(t.goalPosition, r.data) ?? Number.NaN);
    }
    if (track.phase !== "unconfirmed") return track.phase === "ended" ? "lost" : "commanded";
    if (track.incarnation !== this.#deps.incarnation()) return "lost";
    if (got.size < ids.length) return "no_answer";
    const ours = ids.filter((id) => got.get(id) === track.goals.get(id));
    if (ours.length === 0) {
      // Still-ness from a sample read after the read-back: nothing moved.
      await this.#deps.readAll();
      const moved = this.movedFromStart(track);
      if (moved !== true && track.incarnation === this.#deps.incarnation() && track.phase === "unconfirmed") {
        track.phase = "ended";
        track.record = {
          actionId: track.actionId,
          state: "rejected",
          moved: false,
          detail: `goal registers read back ${ids.map((id) => `${id}:${got.get(id)}`).join(", ")}, not our targets: the goal write was lost`,
        };
        track.end();
        return "not_commanded";
      }
    }
    if (track.phase !== "unconfirmed") return track.phase === "ended" ? "lost" : "commanded";
    track.phase = "running";
    track.confirmedAt = this.#deps.now();
    if (ours.length < ids.length)
      track.record = {
        ...track.record,
        detail: `servo(s) ${ids.filter((id) => !ours.includes(id)).join(", ")} did not take the goal`,
      };
    return "commanded";
  }

  /**
   * Waits for the motion's end, `signal`, or `interrupted` (the link dropped:
   * the wait ends with link_error; the motion is left to observation).
   */
  async await(
    track: BusTrack,
    signal: AbortSignal,
    interrupted: AbortSignal,
    closed: () => boolean,
  ): Promise<MotionEnd> {
    if (track.phase === "unconfirmed" && !interrupted.aborted) {
      const v = await this.confirm(track);
      if (v === "no_answer")
        return {
          kind: "link_error",
          error: new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", {
            op: "goal read-back",
            ms: this.#deps.channel.options.replyTimeoutMs * this.#deps.readAttempts,
          }),
        };
      if (v === "not_commanded") return this.#outcome(track);
    }
    if (track.phase !== "ended") {
      const listeners: Array<() => void> = [];
      const ended = (s: AbortSignal): Promise<void> =>
        new Promise<void>((resolve) => {
          if (s.aborted) return resolve();
          const on = (): void => resolve();
          s.addEventListener("abort", on, { once: true });
          listeners.push(() => s.removeEventListener("abort", on));
        });
      try {
        await Promise.race([track.ended, ended(signal), ended(interrupted)]);
      } finally {
        for (const off of listeners) off();
      }
    }
    if (track.phase !== "ended") {
      if (closed())
        return {
          kind: "link_error",
          error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.#deps.transportKind }),
        };
      if (interrupted.aborted && !signal.aborted)
        return {
          kind: "link_error",
          error: new ArmbridgeError("ARMB_ERR_LINK_LOST", {
            link: this.#deps.transportKind,
            reason: "the servos stopped answering while the motion ran",
          }),
        };
      return { kind: "wait_ended" };
    }
    return this.#outcome(track);
  }

  #outcome(track: BusTrack): MotionEnd {
    if (track.record.state === "unknown")
      return {
        kind: "link_error",
        error: new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", {
          from: track.incarnation,
          to: this.#deps.incarnation(),
        }),
      };
    if (track.record.state === "rejected")
      return {
        kind: "refused",
        reason: track.record.detail ?? "rejected",
        error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", {
          actionId: track.actionId,
          reason: track.record.detail ?? "",
        }),
      };
    return { kind: "ended", record: track.record };
  }

  /** Some running motion's servos all read still: its verdict is near and needs fresh torque readings. */
  atRest(): boolean {
    const { servos, protocol } = this.#deps;
    for (const track of this.#tracks.values()) {
      if (
        track.phase === "running" &&
        track.axes.every((a) => servos.get(servos.byName.get(a)!, protocol.table.moving) === 0)
      )
        return true;
    }
    return false;
  }

  /** Judges every running motion on the cycle just read. */
  judgeAll(): void {
    for (const track of this.#tracks.values()) if (track.phase === "running") this.#judge(track);
  }

  /** Marks motions on these axes as halted: a stop short of the target is `stopped`, not `stalled`. */
  markHalted(axes: readonly string[]): void {
    for (const track of this.#tracks.values())
      if (track.phase !== "ended" && track.axes.some((a) => axes.includes(a))) track.halted = true;
  }

  /** A servo lost power: every motion on it is cut short and its outcome unknown (the incarnation changed). */
  loseOn(s: ServoState, why: string): void {
    for (const track of this.#tracks.values()) {
      if (track.phase === "ended" || !track.axes.includes(s.axis.name)) continue;
      track.phase = "ended";
      track.record = { actionId: track.actionId, state: "unknown", moved: undefined, detail: why };
      track.end();
    }
  }

  /** Ends every wait (close()). */
  endAll(): void {
    for (const t of this.#tracks.values()) t.end();
  }

  #judge(track: BusTrack): void {
    const { servos, protocol, schedule } = this.#deps;
    const t = protocol.table;
    const list = track.axes.map((a) => servos.byName.get(a)!);
    if (list.some((s) => s.stampMs <= track.confirmedAt)) return;
    // A shut-down servo ends the motion as faulted; whether it moved is read from the pose (#finish).
    const hw = list.filter((s) => s.tripped !== undefined);
    if (hw.length > 0) {
      this.#finish(
        track,
        "faulted",
        hw.map((s) => `servo ${s.axis.id} (${s.axis.name}): ${s.tripped ?? ""}`).join("; "),
      );
      return;
    }
    if (list.some((s) => servos.get(s, t.moving) !== 0)) {
      track.stillSamples = 0;
      return;
    }
    // At rest — reached, stalled or stopped — or did a servo lose power? Only a torque
    // reading taken with this sample tells (a power-cycled servo reads still too).
    if (!list.every((s) => schedule.healthFresh(s))) {
      schedule.want();
      return;
    }
    const atTarget = track.axes.every(
      (axis) =>
        Math.abs(servos.position(servos.byName.get(axis)!) - (track.targets[axis] ?? Number.NaN)) <=
        servos.tolerance(axis),
    );
    if (atTarget) {
      this.#finish(track, "reached", "");
      return;
    }
    // A servo may report still for a sample before its profile starts: ask for a second still sample.
    track.stillSamples++;
    if (track.stillSamples < 3) return;
    this.#finish(
      track,
      track.halted ? "stopped" : "stalled",
      track.halted ? "halted" : "servo(s) came to rest short of the goal",
    );
  }

  #finish(track: BusTrack, state: ArmActionState, detail: string): void {
    if (track.phase === "ended") return;
    track.phase = "ended";
    const moved = state === "reached" ? true : this.movedFromStart(track);
    track.record = {
      actionId: track.actionId,
      state,
      moved,
      ...(detail ? { detail } : track.record.detail ? { detail: track.record.detail } : {}),
    };
    this.#deps.log.info({ action_id: track.actionId, state, moved }, "motion ended");
    track.end();
  }

  /** Displaced beyond tolerance → true; every axis still and in place (read now) → false; else unknown. */
  movedFromStart(track: BusTrack): boolean | undefined {
    const { servos, protocol } = this.#deps;
    let still = true;
    for (const axis of track.axes) {
      const s = servos.byName.get(axis)!;
      const from = track.start[axis];
      if (from === undefined || Number.isNaN(from) || s.stampMs === 0) return undefined;
      if (Math.abs(servos.position(s) - from) > servos.tolerance(axis)) return true;
      if (servos.get(s, protocol.table.moving) !== 0) still = false;
    }
    return still ? false : undefined;
  }
}
