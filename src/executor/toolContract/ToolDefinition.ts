import type { ImageBudget } from "../../cameras/ImageBudget.js";
import type { z } from "zod";
import type { CameraImage } from "../../cameras/CameraImage.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ErrorCode } from "../../errors.js";
import type { ActionRow } from "../../ledger/ActionRow.js";
import type { CallClient } from "../../ledger/CallClient.js";
import type { HaltRow } from "../../ledger/HaltRow.js";
import type { MotionPlan } from "../../motion/MotionPlan.js";
import type { ActionRecord, ArmStatus, HaltResult, MotionCommand } from "../../transport/Transport.js";

/**
 * What a read tool, and a motion tool while it plans, may use: reads only.
 * Nothing here sends, stops or records anything — a motion leaves only
 * through the executor's motion path, after locks, admission and the ledger.
 */
export interface ReadContext {
  readonly config: ArmConfig;
  /** The arm's newest status; undefined before the first. */
  readonly latestStatus: () => ArmStatus | undefined;
  /** An action as the intent ledger records it. */
  readonly action: (actionId: string) => ActionRow | undefined;
  /** Resource → unresolved action ids holding it in quarantine. */
  readonly quarantined: () => ReadonlyMap<string, readonly string[]>;
  /** The newest open halt while the bridge is latched (every motion refused until an operator releases it); undefined when motion is accepted. */
  readonly halted: () => HaltRow | undefined;
  readonly now: () => number;
  /** The picture budget of the response this call's result goes into (set by the executor per call). */
  readonly imageBudget?: ImageBudget | undefined;
}

/** What a halt tool may use: the reads, and halting (which latches the bridge until an operator releases it). */
export interface HaltContext extends ReadContext {
  readonly halt: (options: {
    readonly axes?: readonly string[] | undefined;
    readonly signal: AbortSignal;
    readonly callId?: string | undefined;
    /** Who sent the `stop` call, when it said. */
    readonly client?: CallClient | undefined;
  }) => Promise<{ readonly halt: HaltRow; readonly result: HaltResult }>;
}

/** Everything an observation may look at. */
export interface ObserveInput {
  readonly command: MotionCommand;
  readonly config: ArmConfig;
  /** The newest status, or undefined when none has arrived. */
  readonly status: ArmStatus | undefined;
  /** The arm's own record of the action, when it keeps one. */
  readonly record: ActionRecord | undefined;
  readonly nowMs: number;
}

/**
 * One look at the arm. `reached`: the target is reached and the axes are
 * still. `not_moved`: positive evidence that no effect landed. `interrupted`:
 * the action ended after moving but short of its target. `in_progress`: it
 * is visibly still running. `no_evidence`: nothing fresh to judge by.
 */
export type ObserveVerdict = "reached" | "not_moved" | "interrupted" | "in_progress" | "no_evidence";

export interface Observation {
  readonly verdict: ObserveVerdict;
  readonly notes: readonly string[];
  /** With `reached`: how it was reached, in words for the model (a gripper that closed on an object). */
  readonly detail?: string;
}

export type ObserveFn = (input: ObserveInput) => Observation;

interface ToolBase<S extends z.ZodType> {
  readonly name: string;
  /** Sent to the model: say what it does, what it blocks on and what results mean. */
  readonly description: string;
  readonly args: S;
}

/**
 * A tool whose effect is physical: it waits for the motion, holds locks on
 * its resources, and after a timeout observes instead of retrying. Every
 * field is required, so a blocking tool without resources or an observation
 * path does not compile; `ToolRegistry.register` checks the same at runtime.
 */
export interface MotionTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  readonly blocking: true;
  readonly resources: (args: z.output<S>) => readonly string[];
  readonly timeoutMs: number;
  /** The only choice: a timeout ends our waiting, and then we look. Retrying a motion is not an option. */
  readonly onTimeout: "observe";
  /**
   * Synchronous for joint tools and local IK; a promise when an IK service is
   * asked (`kinematics: moveit`). `signal` ends with the call's run (shutdown,
   * deadline): a remote wait stops there and nothing is sent.
   */
  readonly plan: (args: z.output<S>, ctx: ReadContext, signal: AbortSignal) => MotionPlan | Promise<MotionPlan>;
  readonly observe: ObserveFn;
  /**
   * Asynchronous checks before the call queues for its locks (a camera whose
   * picture the call is based on must still be live). A refusal makes the
   * call `failed` with its code: nothing is recorded or sent.
   */
  readonly precheck?: (
    args: z.output<S>,
    ctx: ReadContext,
    signal: AbortSignal,
  ) => Promise<PrecheckRefusal | undefined>;
  /** What the tool derives from its arguments (the table point an image point maps to), attached to every result as `context`. */
  readonly context?: (args: z.output<S>, ctx: ReadContext) => Readonly<Record<string, unknown>> | undefined;
}

export interface PrecheckRefusal {
  readonly code: ErrorCode;
  readonly reason: string;
}

/** A tool that reads state and has no physical effect. */
export interface ReadTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  readonly blocking: false;
  readonly kind: "read";
  readonly timeoutMs: number;
  readonly run: (args: z.output<S>, ctx: ReadContext, signal: AbortSignal) => Promise<ReadOutput>;
}

/**
 * A tool that halts motion. It bypasses the lock queue and quarantine on
 * purpose: stopping must always be possible, even (especially) mid-motion.
 */
export interface HaltTool<S extends z.ZodType = z.ZodType> extends ToolBase<S> {
  readonly blocking: false;
  readonly kind: "halt";
  readonly timeoutMs: number;
  readonly run: (args: z.output<S>, ctx: HaltContext, signal: AbortSignal) => Promise<ReadOutput>;
  /**
   * What to act on when the call's arguments do not parse: a halt is never
   * refused for them. The widest reading wins where a part is unclear
   * (`stop`: every axis unless each named joint is one of the arm's).
   */
  readonly understood: (raw: unknown) => z.output<S>;
}

export interface ReadOutput {
  readonly message: string;
  /**
   * Set by a halt the arm did not confirm: the call's outcome is unknown (the
   * arm may still be moving), never `done`. Names the resources it concerns.
   */
  readonly unconfirmed?: { readonly resources: readonly string[] } | undefined;
  readonly data: Readonly<Record<string, unknown>>;
  readonly pose?: Readonly<Record<string, number>> | undefined;
  /** Pictures for the model (get_camera_image); surfaces deliver them as image content. */
  readonly images?: readonly CameraImage[] | undefined;
}

export type ToolDefinition = MotionTool | ReadTool | HaltTool;

/** Helper that keeps the args type flowing into resources/plan without casts at the call site. */
export function defineMotionTool<S extends z.ZodType>(tool: MotionTool<S>): MotionTool {
  return tool;
}
export function defineReadTool<S extends z.ZodType>(tool: ReadTool<S> | HaltTool<S>): ReadTool | HaltTool {
  return tool;
}
