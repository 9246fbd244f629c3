import type { ArmbridgeError } from "../errors.js";
import type { MotionTiming } from "../motion/MotionTiming.js";
import type { ServoHealth } from "./ServoHealth.js";
import type { WireNumbers } from "./WireNumbers.js";

/**
 * The one contract between the executor and an arm. The executor never
 * imports serialport or rclnodejs; the serial path (firmware over a serial
 * line) and the ROS 2 path (ros2_control controllers) each implement this.
 *
 * Two rules every implementation keeps:
 * - An AbortSignal passed here ends only *our waiting*. It never stops, and
 *   never re-sends, a motion. Stopping is `halt`, and only `halt`.
 * - A motion is identified by its `actionId` from the moment it is created.
 *   A transport may re-send the *same* command (same id) at link level, so the
 *   device can de-duplicate it; it never issues a new motion on its own.
 */
export interface Transport {
  /** Short name for logs and errors, e.g. "serial" or "ros2". */
  readonly kind: string;

  /**
   * How this transport's wire carries targets and speed (float32 on the
   * serial protocol, whole encoder counts on a servo bus, float64 on ROS 2).
   * Plan admission compares targets with limits as the arm will see them.
   * Omitted: float64.
   */
  readonly wire?: WireNumbers;

  /** Connects and waits for the first status from the arm. */
  open(signal?: AbortSignal): Promise<void>;

  /** Releases ports, sockets, timers and ROS handles; idempotent. */
  close(): Promise<void>;

  /**
   * Sends one motion and waits until the arm reports it ended or `signal`
   * fires. Never rejects: every way it can end is a `MotionEnd`.
   */
  runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd>;

  /**
   * Asks the arm what it knows about an action. With `voidIfUnknown`, an arm
   * that has no record of the id records it as `voided`, so the command can
   * never run later (a frame still in flight is refused on arrival): that turns
   * "not known" into positive evidence that it will never have an effect.
   * Resolves `undefined` when the arm cannot be asked (no answer before
   * `signal`, link down, or the transport has no such query).
   *
   * An arm that may have lost its memory of an action since we sent it (a
   * device reboot since the send) proves nothing by not knowing it: the
   * transport must then neither void it nor report `moved: false`; it returns
   * state `unknown` with `moved: undefined`.
   */
  queryAction(
    actionId: string,
    options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined>;

  /** The newest status received, or undefined before the first one. */
  latestStatus(): ArmStatus | undefined;

  /** Called on every status (serial STATUS frames, ROS /joint_states). Returns an unsubscribe function. */
  onStatus(listener: (status: ArmStatus) => void): () => void;

  /** The arm connection's state now (never throws; `down` before open and after close). */
  linkState(): LinkState;

  /**
   * Called when the link state changes (state, attempt or detail), as soon as
   * the transport knows — not on a poll of the caller's. Returns an unsubscribe function.
   */
  onLinkState(listener: (state: LinkState) => void): () => void;

  /**
   * Halts motion on these axes (all axes when omitted) and holds position.
   * Resolves with the status observed after the halt, if any arrived before
   * `signal` fired. Never rejects.
   */
  halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult>;

  /** Which arm this is and which of its memories, where the arm can tell. */
  readonly identity?: ArmIdentity;

  /**
   * How this transport turns a motion's speed into each axis's motion
   * (MotionTiming): what `limits.max_tool_speed_mps` needs to bound the
   * tool's speed and to slow a motion down. A transport without it (or whose
   * timing answers undefined) cannot be held to a tool-speed limit: motions
   * are refused while one is configured.
   */
  readonly timing?: MotionTimingSource;

  /**
   * How fast motions run now against their plan, where the arm says (a
   * controller's speed scaling). Without it motions are taken to run at
   * their planned speed.
   */
  readonly pace?: MotionPaceSource;

  /** The servos' own condition and an operator's recovery of tripped ones, where the arm's servos report them (servo buses). */
  readonly servos?: ServoCare;
  /** The steps that bring an arm back after its own safety system took its controllers down (an FR3 reflex). */
  readonly armRecovery?: ArmRecovery;
}

/** Which arm is behind a transport, as far as the arm can tell (Transport.identity). */
export interface ArmIdentity {
  /**
   * Says which arm this is (serial: the firmware and axes its HELLO reports;
   * ROS 2: the controllers and their action servers), or undefined before
   * `open` / when the arm cannot say. Stable across reboots, unlike
   * `incarnation`. The bridge records it in the ledger and refuses to
   * reconcile rows recorded against another arm.
   */
  arm(): string | undefined;

  /**
   * Names the arm's current memory of actions (the firmware's boot id), when
   * the arm keeps one. The executor records it with each intent: an arm whose
   * incarnation has changed since a command was sent may have forgotten it,
   * so its "never heard of it" is no evidence, and the action is never voided.
   */
  incarnation(): string | undefined;
}

/** See Transport.timing. */
export interface MotionTimingSource {
  motionTiming(): MotionTiming | undefined;
}

/** See Transport.pace. */
export interface MotionPaceSource {
  /**
   * How fast motions on these axes run now, against their plan: a speed
   * slider (UR's speed scaling), a program paused on a teach pendant, a
   * simulation slower than real time. Undefined when the arm does not say
   * (then motions are taken to run at their planned speed). The executor
   * counts its wait budgets in this time, so a correct motion at 30 % speed
   * is not taken for a lost one, and a paused one is reported as paused.
   */
  of(axes: readonly string[]): MotionPace | undefined;

  /** Called when the pace may have changed (a slider moved, a pause began or ended). Returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** One step of an arm's recovery: its name and, in words for an operator, what it calls. */
export interface ArmRecoveryStep {
  readonly step: string;
  readonly does: string;
}

export interface ArmRecoveryOutcome extends ArmRecoveryStep {
  /** `not_run`: an earlier step failed, and the order matters. */
  readonly outcome: "done" | "failed" | "not_run";
  readonly detail?: string;
}

/**
 * See Transport.armRecovery. Never automatic: the cause is at the arm, where
 * only a person sees it; an operator looks at the plan, then runs it. Each
 * step runs only once the one before it has succeeded. Never rejects.
 */
export interface ArmRecovery {
  plan(): readonly ArmRecoveryStep[];
  run(signal: AbortSignal): Promise<readonly ArmRecoveryOutcome[]>;
}

/** See Transport.servos. */
export interface ServoCare {
  /**
   * Each servo's condition — temperature, supply voltage, load, hardware
   * errors — against its own limits. For the operator, save `shut_down`,
   * which the executor reads to answer motions on such a servo `blocked`
   * until it is recovered. A transport without such data has no `servos`
   * (the HTTP state then has no `servo_health`, rather than zeros).
   */
  health(): readonly ServoHealth[];

  /**
   * An operator's deliberate recovery of axes whose servos shut down on a
   * hardware error: reboot where the protocol has one, then torque back on
   * holding the present position, so nothing moves. Never automatic: a
   * protection trip (overload, overheating) usually has a cause at the arm
   * that a person must see first. Axes omitted → every tripped axis. Never
   * rejects; each axis gets its own outcome.
   */
  recover(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<readonly ServoRecovery[]>;
}

/** The arm's pace now (see MotionPaceSource.of). */
export interface MotionPace {
  /** Planned seconds the arm covers per wall second: 1 at full speed, 0.3 with the slider at 30 %, 0 while paused. */
  readonly factor: number;
  /** The arm was paused, not slowed: its speed scaling is 0 (UR: the teach pendant's speed slider at 0, or its program paused). */
  readonly paused: boolean;
  /** The speed scaling the controller reports, when it reports one (0..1). */
  readonly speedScaling?: number;
  /** Where this comes from, in words for an operator. */
  readonly source: string;
  /** Epoch ms (our clock) of the reading. */
  readonly stampMs: number;
}

/** What recovering one axis's servo came to. */
export interface ServoRecovery {
  readonly axis: string;
  readonly outcome: ServoRecoveryOutcome;
  /** The hardware error it had tripped on, and what was done or why not. */
  readonly detail: string;
}

export type ServoRecoveryOutcome =
  /** Rebooted (if the protocol can) and holding its present position with torque on. */
  | "recovered"
  /** It was not shut down: torque on, no error; nothing was sent. */
  | "not_needed"
  /** The error is still there after the reboot (or, without one, still reported): the cause persists; torque stays off. */
  | "still_in_error"
  /** A motion on it is still being judged; try again once it has settled. */
  | "busy"
  /** Another request is recovering this servo right now: its answer says how that went; nothing was sent for this one. */
  | "in_progress"
  /** It did not answer (after the reboot): torque state unknown, treat it as off. */
  | "no_answer";

/** One motion: absolute targets (never relative), so a re-sent command cannot move the arm twice. */
export interface MotionCommand {
  readonly actionId: string;
  /** Axis name → absolute target (rad for joints, 0..1 for the gripper). */
  readonly targets: Readonly<Record<string, number>>;
  /** Fraction of each axis's max velocity, in (0, 1]. */
  readonly speed: number;
}

/**
 * What the arm says about one action: the device's (or controller's) own
 * record. Not the ledger's state of an action (ActionRowState), where
 * `unknown` means the bridge could not tell what happened; here it means the
 * arm has no record of the id.
 */
export type ArmActionState =
  /** The arm has no record of this id (never arrived, or the arm lost its memory in a reboot). */
  | "unknown"
  /** Accepted, motion under way. */
  | "executing"
  /** Every axis reached its target. */
  | "reached"
  /**
   * A gripper asked to close stopped short of its target because it closed
   * on an object, and holds it: what a close is for, so not a stall. `detail`
   * says where it stopped.
   */
  | "grasped"
  /** Halted by a stop before reaching the target. */
  | "stopped"
  /** An axis could not move on (blocked, overload). */
  | "stalled"
  /** Refused before any motion (limits, busy, bad frame): nothing moved. */
  | "rejected"
  /** The arm faulted during the action. */
  | "faulted"
  /** Voided by `queryAction({ voidIfUnknown: true })`: it will never run. */
  | "voided";

export interface ActionRecord {
  readonly actionId: string;
  readonly state: ArmActionState;
  /**
   * Whether any axis moved for this action: `false` is positive evidence that
   * no effect landed; `undefined` means the arm does not know.
   */
  readonly moved: boolean | undefined;
  /** A device or controller reason (fault text, NACK reason, ROS error string). */
  readonly detail?: string;
}

export interface AxisState {
  readonly position: number;
  readonly velocity: number;
  readonly moving: boolean;
}

export interface ArmStatus {
  /** Local epoch ms when this status was measured or (ROS) received: always on our clock. */
  readonly stampMs: number;
  readonly axes: Readonly<Record<string, AxisState>>;
  readonly faults: readonly string[];
  /** Recent actions as the arm reports them; empty when the arm does not report them (ROS). */
  readonly actions: readonly ActionRecord[];
}

/** How a `runMotion` ended. Exhaustive tables over `kind` keep every case handled. */
export type MotionEnd =
  /** The arm reported the action's terminal state (reached, stopped, stalled, faulted, rejected). */
  | { readonly kind: "ended"; readonly record: ActionRecord }
  /** Positive evidence that the motion never started (NACK, goal rejected) — nothing moved. */
  | { readonly kind: "refused"; readonly reason: string; readonly error: ArmbridgeError }
  /** Our signal fired first. Says nothing about the motion, which may still be running. */
  | { readonly kind: "wait_ended" }
  /** The link or node failed while we waited. Says nothing about the motion either. */
  | { readonly kind: "link_error"; readonly error: ArmbridgeError };

export type MotionEndKind = MotionEnd["kind"];

export interface HaltResult {
  readonly halted: boolean;
  readonly status: ArmStatus | undefined;
  readonly error?: ArmbridgeError;
}

/** States after which an action will never move the arm again. */
export const TERMINAL_ACTION_STATES: Readonly<Record<ArmActionState, boolean>> = {
  unknown: false,
  executing: false,
  reached: true,
  grasped: true,
  stopped: true,
  stalled: true,
  rejected: true,
  faulted: true,
  voided: true,
};

/**
 * The state of the connection to the arm, as a console shows it beside (and
 * apart from) its own event stream:
 * - `connected`: the link is up and the arm answers;
 * - `reconnecting`: the link was lost (or the arm stopped answering) and the
 *   transport is trying to get it back on its own — `attempt` counts tries;
 * - `down`: not opened yet, closed, or given up: nothing is trying.
 */
export type LinkStateName = "connected" | "reconnecting" | "down";

/** The HTTP API carries this shape unchanged (`GET /v1/state` → `link`, the SSE `state` event). */
export interface LinkState {
  readonly state: LinkStateName;
  /** Epoch ms (our clock) when the link entered this state. */
  readonly since: number;
  /** Reconnection attempt under way or just failed (1, 2, …); only while `reconnecting`, when the transport counts them. */
  readonly attempt?: number;
  /** Epoch ms of the newest status received from the arm, if any ever was: how old "the arm's pose" really is. */
  readonly last_status_at?: number;
  /** Why, in words for an operator (the error that dropped the link, what is missing). */
  readonly detail?: string;
  /** Epoch ms of the next reconnection attempt, while `reconnecting` and waiting between attempts. */
  readonly next_attempt_at?: number;
  /**
   * The coded reason the newest attempt was refused, while `reconnecting`:
   * `ARMB_ERR_DEVICE_REPLACED` when another device answered on the link (it is
   * never driven), `ARMB_ERR_LINK_OPEN` when the port could not be opened, ….
   * While `connected`: why an arm that answers cannot move (`detail` says
   * what to do): `ARMB_ERR_ARM_NOT_READY` (a UR's program not playing),
   * `ARMB_ERR_ARM_SAFETY_STOP` (its protective stop or E-stop; the executor
   * latches a HALT on it). An FR3 reflex sets ARMB_ERR_ARM_SAFETY_STOP in any
   * state: it takes the JointStates down with the controllers.
   */
  readonly error_code?: string;
  /**
   * The arm's incarnation now, when the transport names one (the firmware's
   * boot, the servos' power cycles, the controllers' restarts): a new one
   * means the arm lost its memory of what was in flight.
   */
  readonly incarnation?: string;
  /** The newest loss of the link (or restart of the arm) and how it came back; kept after the return. */
  readonly last_loss?: LinkLoss;
}

/**
 * One loss of the link to the arm, or one restart of the arm behind a link
 * that stayed up (a reboot seen in its status, a servo found with torque off).
 * What was in flight is never re-sent: it is settled by observation once the
 * arm answers again.
 */
export interface LinkLoss {
  /** Epoch ms the loss (or restart) was noticed. */
  readonly lost_at: number;
  /** What was noticed, in words for an operator. */
  readonly reason: string;
  /** Action ids of the motions the transport had in flight at that moment. */
  readonly in_flight: readonly string[];
  /** Epoch ms the arm answered again (`connected`); absent while it has not. */
  readonly returned_at?: number;
  /** Reconnection attempts it took (0 for a restart behind a link that stayed up). */
  readonly attempts: number;
  /**
   * Whether the arm came back as a new incarnation: after a power loss (servo
   * torque off, registers at power-on values), a new firmware boot, a
   * restarted controller. What was in flight may then have been cut short.
   */
  readonly incarnation_changed?: boolean;
  /** What the return found, in words for an operator. */
  readonly returned_detail?: string;
}
