import { setMaxListeners } from "node:events";
import { ImageBudget } from "../cameras/ImageBudget.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError } from "../errors.js";
import type { ActionRow } from "../ledger/ActionRow.js";
import type { Confirmation } from "../ledger/ActionSettlements.js";
import type { CallClient } from "../ledger/CallClient.js";
import type { HaltRow } from "../ledger/HaltRow.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import { normaliseOperatorName } from "../ledger/operatorName.js";
import type { Logger } from "../observability/logger.js";
import type { MotionRateLimit } from "../safety/MotionRateLimit.js";
import type { Transport } from "../transport/Transport.js";
import { parseUntrusted } from "../validation/parseUntrusted.js";
import type { EnvelopeRefusalRecord, ExecutorParts } from "./ExecutorParts.js";
import { annotateMotion, type AnnotationDeps } from "./calls/annotateMotion.js";
import type { ApprovalDesk } from "./operator/ApprovalDesk.js";
import type { ArmState } from "./arm/ArmState.js";
import type { CallAdmission } from "./calls/CallAdmission.js";
import { MAX_BATCH } from "../wire/limits.js";
import { CallDeadline } from "./calls/CallDeadline.js";
import type { CallResponse, CallResult, FunctionCall } from "./calls/CallResult.js";
import { actedAround, rejected } from "./calls/callResults.js";
import { confirmUnknown } from "./operator/confirmUnknown.js";
import type { ExecutorEvent } from "./ExecutorEvent.js";
import type { ExecutorEvents } from "./ExecutorEvents.js";
import type { HaltOutcome, HaltRequest } from "./arm/HaltLatch.js";
import type { JointLockTable } from "./arm/JointLockTable.js";
import { failedBeforeSend, precheckMotion } from "./calls/motionCallRefusals.js";
import type { MotionRunner } from "./motion/MotionRunner.js";
import type { RecordedObservationDeps } from "./reconciliation/observeRecordedAction.js";
import type { OperatorPresence } from "./operator/OperatorPresence.js";
import type { Quarantine } from "./arm/Quarantine.js";
import { reconcileStarted } from "./reconciliation/reconcileStarted.js";
import { restoreInFlight } from "./reconciliation/restoreInFlight.js";
import { runNonBlocking } from "./calls/runNonBlocking.js";
import type { HaltContext, MotionTool, ReadContext } from "./toolContract/ToolDefinition.js";
import type { ToolMetrics } from "./calls/ToolMetrics.js";
import type { ToolRegistry } from "./toolContract/ToolRegistry.js";

export type { ExecutorEvent } from "./ExecutorEvent.js";
export { newActionId } from "./calls/newActionId.js";

export interface ExecuteOptions {
  /** The run deadline, in ms from now, that every call inherits. */
  readonly deadlineMs?: number | undefined;
  /**
   * Ends waiting for the whole run (the agent's deadline, a cancellation):
   * calls not yet sent end (`skipped`, an approval request withdrawn), a
   * motion's wait ends and the motion is settled by observation. Motions are
   * never stopped.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * The caller went away (its connection closed): calls not yet sent end as
   * with `signal`, but a motion already sent is followed to its end as if the
   * caller were still there — settled by completion, recorded in the ledger —
   * for a caller re-attaching by call id (`attach`, or the same call again).
   */
  readonly detach?: AbortSignal | undefined;
  /**
   * Per call id, what ends that call's waits alone, as `signal` ends the
   * run's (POST /v1/calls/cancel names calls): nothing sent yet, it ends
   * `skipped` with the signal's reason; a motion's wait ends and the motion
   * is settled by observation, never stopped. Its batch goes on.
   */
  readonly callSignals?: ReadonlyMap<string, AbortSignal> | undefined;
  /** Who sent these calls: recorded with each motion in the ledger and carried by every event about them. */
  readonly client?: CallClient | undefined;
  /**
   * The picture budget of the response these results go into. Default: one
   * per `execute` (an HTTP answer, an MCP result, a unary agent turn); a
   * surface whose one answer gathers several executes (a Live tool response)
   * passes one to all of them.
   */
  readonly imageBudget?: ImageBudget | undefined;
}

const DEFAULT_RUN_DEADLINE_MS = 60_000;

/**
 * Turns function calls into arm commands, and never lies about what the arm did.
 *
 * `execute` never rejects: each call gets exactly one result. Calls sharing a
 * joint (or a controller) run one after another in arrival order; disjoint
 * calls run together. Every motion is written to the ledger before it leaves.
 * A timeout ends our wait, never the motion: we then observe the arm until its
 * state tells us `done` or `failed`, and say `unknown` — quarantining its
 * joints until an operator confirms — only when it cannot.
 *
 * The parts, built by the composition root (composeExecutor) and handed in:
 * CallAdmission (batch and call-id checks, in-flight joins, recorded
 * replays), MotionRunner (the motion path, MOTION_STAGES), ActionSettler (the
 * one settlement path), the arm's state (ArmState), and the watches on the
 * transport that settle unknown actions later (resolveUnknownsFrom,
 * watchLinkReturns).
 */
export class Executor {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly metrics: ToolMetrics;
  /** The arm's own state (one per arm). */
  readonly arm: ArmState;
  /** Calls waiting for an operator's approve / decline (config `approval`). */
  readonly approvals: ApprovalDesk;
  /** limits.motions_per_minute: the bridge's one bucket, undefined when not configured. */
  readonly motionRate: MotionRateLimit | undefined;
  /** Hold-to-run (config operator_presence.required): consoles' heartbeats; undefined when not configured. */
  readonly presence: OperatorPresence | undefined;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #events: ExecutorEvents;
  readonly #shutdown: AbortController;
  readonly #ctx: ReadContext;
  readonly #haltCtx: HaltContext;
  readonly #admission: CallAdmission;
  readonly #motions: MotionRunner;
  readonly #envelopeRefusal: ExecutorParts["envelopeRefusal"];
  readonly #recorded: RecordedObservationDeps;
  readonly #annotation: AnnotationDeps;
  readonly #halt: ExecutorParts["halt"];
  #watches: readonly (() => void)[];

  constructor(parts: ExecutorParts) {
    this.config = parts.config;
    this.registry = parts.registry;
    this.transport = parts.transport;
    this.ledger = parts.ledger;
    this.metrics = parts.metrics;
    this.arm = parts.arm;
    this.approvals = parts.approvals;
    this.motionRate = parts.motionRate;
    this.presence = parts.presence;
    this.#log = parts.log;
    this.#now = parts.now;
    this.#events = parts.events;
    this.#shutdown = parts.shutdown;
    this.#ctx = parts.ctx;
    this.#admission = parts.admission;
    this.#motions = parts.motions;
    this.#envelopeRefusal = parts.envelopeRefusal;
    this.#recorded = parts.recorded;
    this.#halt = parts.halt;
    this.#watches = parts.watches;
    this.#annotation = {
      ctx: parts.ctx,
      log: parts.log,
      shutdown: parts.shutdown.signal,
      imagesAfterMotion: parts.imagesAfterMotion,
    };
    const halts = parts.arm.halts;
    this.#haltCtx = {
      ...this.#ctx,
      halt: (o) => halts.halt({ source: "tool", callId: o.callId, axes: o.axes, client: o.client }, o.signal),
    };
  }

  /** Calls sharing a joint (or a controller) take turns here. */
  get locks(): JointLockTable {
    return this.arm.locks;
  }

  /** Resources held by actions whose outcome is unknown. */
  get quarantine(): Quarantine {
    return this.arm.quarantine;
  }

  /** The halt latch: on from any halt until an operator releases it; every motion is refused meanwhile. */
  get halts(): ArmState["halts"] {
    return this.arm.halts;
  }

  /** The newest refusal by the safety envelope (link, obstacle, where, clearance), for GET /v1/state and a 3D view; undefined before any. */
  get lastEnvelopeRefusal(): EnvelopeRefusalRecord | undefined {
    return this.#envelopeRefusal.last;
  }

  /** Subscribe to progress events; returns the unsubscribe function. */
  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    return this.#events.on(listener);
  }

  /** Runs one model turn's calls; one response per call, in call order, matching ids. Never rejects. */
  async execute(calls: readonly FunctionCall[], options: ExecuteOptions = {}): Promise<CallResponse[]> {
    const deadlineMs = options.deadlineMs ?? DEFAULT_RUN_DEADLINE_MS;
    const deadlineAt = this.#now() + Math.max(0, deadlineMs);
    // The run ends on shutdown or when the caller goes away; each call's deadline is its own
    // (CallDeadline), since a call waiting for an operator's approval does not spend it.
    const run = new AbortController();
    // Shutting down ends every wait too (never a motion): in-flight rows stay `started` for the next start to reconcile.
    // A listener removed in `finally`, not AbortSignal.any: on Node 20 every signal composed
    // from the long-lived shutdown signal stays referenced by it, growing with each call.
    const onShutdown = (): void => run.abort("the bridge is shutting down");
    if (this.#shutdown.signal.aborted) onShutdown();
    else this.#shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    // A motion's wait ends with the run (shutdown, `signal`); the waits before a send end with the caller too.
    const waitSignal = options.signal ? AbortSignal.any([run.signal, options.signal]) : run.signal;
    const runSignal = options.detach ? AbortSignal.any([waitSignal, options.detach]) : waitSignal;
    // Every call of the batch listens on the run signal (its deadline, an approval wait): up to MAX_BATCH × 2 listeners is expected, not a leak.
    setMaxListeners(MAX_BATCH * 2 + 8, run.signal, waitSignal, runSignal);
    const images = options.imageBudget ?? new ImageBudget();
    try {
      const admitted = this.#admission.admitBatch(calls, options.client);
      return await Promise.all(
        admitted.map(async ({ id, name, refusal }, i): Promise<CallResponse> => {
          if (refusal) return { id, name, result: refusal };
          // A call's own cancel ends its waits alone, never its batch's.
          const own = options.callSignals?.get(id);
          const deadline = own
            ? new CallDeadline(
                AbortSignal.any([runSignal, own]),
                deadlineAt,
                this.#now,
                AbortSignal.any([waitSignal, own]),
              )
            : new CallDeadline(runSignal, deadlineAt, this.#now, waitSignal);
          try {
            return {
              id,
              name,
              result: await this.#executeOne(id, name, calls[i]?.args, deadline, options.client, images),
            };
          } finally {
            deadline.dispose();
          }
        }),
      );
    } finally {
      this.#shutdown.signal.removeEventListener("abort", onShutdown);
    }
  }

  /**
   * Re-attaches to a motion call by its id, running nothing: waits for the
   * call under way with this id, or returns the recorded result of one that
   * finished (both `replayed`); undefined when no motion runs or was recorded
   * under the id (reads and halts are never recorded: send those again).
   */
  async attach(callId: string): Promise<CallResponse | undefined> {
    const found = this.#admission.attach(callId);
    if (!found) return undefined;
    return { id: callId, name: found.tool, result: await found.result };
  }

  /**
   * An operator's word on an unknown action (reached / partial / not_moved,
   * or the older done / not_done): records it with the pose the arm reports
   * at this moment and lifts the quarantine on what the outcome releases.
   */
  confirm(actionId: string, confirmation: Confirmation): ActionRow {
    const { ledger, transport } = this;
    const d = { ledger, transport, quarantine: this.arm.quarantine, log: this.#log, now: this.#now };
    return confirmUnknown(actionId, confirmation, { ...d, emit: this.#events.emit });
  }

  /**
   * A halt asked by a person (console, CLI, HTTP): sent at once, latching the
   * bridge until an operator releases it. Resolves once the arm answered, or
   * after the stop tool's timeout (then it counts as not confirmed).
   * The `stop` tool goes the same way.
   */
  halt(request: HaltRequest): Promise<HaltOutcome> {
    return this.#halt(request);
  }

  /** An operator's release of the halt latch, by name (ARMB_ERR_OPERATOR_REQUIRED without one, ARMB_ERR_NOT_HALTED when there is none). */
  releaseHalt(release: { readonly operator: string; readonly note?: string | undefined }): HaltRow[] {
    const operator = normaliseOperatorName(release.operator);
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_RELEASE_OPERATOR_REQUIRED");
    return this.arm.halts.release(operator, release.note);
  }

  /**
   * Counts every motion the ledger holds `started` or `unknown` as in flight
   * for the envelope, over its whole recorded path, until it is settled or
   * confirmed. Runs at construction — a start, an adopted ledger — and is
   * for the link lifecycle to call when the arm's link comes back: the arm
   * did not stop for our outage. Returns the action ids added.
   */
  restoreInFlightFromLedger(): string[] {
    return restoreInFlight(this.arm.inFlight, { ledger: this.ledger, config: this.config, log: this.#log });
  }

  /**
   * On start: actions left `started` by a crash are settled by observation,
   * or become `unknown` (quarantined). Nothing is ever re-sent.
   */
  async reconcile(): Promise<ActionRow[]> {
    return reconcileStarted(this.#recorded);
  }

  /** Stops watching the arm and ends observations in progress. Motions are not stopped. */
  close(): void {
    this.#shutdown.abort();
    this.presence?.close();
    for (const unwatch of this.#watches) unwatch();
    this.#watches = [];
  }

  async #executeOne(
    callId: string,
    name: string,
    rawArgs: unknown,
    deadline: CallDeadline,
    client: CallClient | undefined,
    images: ImageBudget,
  ): Promise<CallResult> {
    const startedAt = this.#now();
    const tool = this.registry.get(name);
    let result: CallResult;
    if (!tool) {
      result = rejected(name, "ARMB_ERR_TOOL_UNKNOWN", [
        {
          path: "name",
          code: "unknown_tool",
          message: new ArmbridgeError("ARMB_ERR_TOOL_UNKNOWN", { tool: name, known: this.registry.names() }).message,
        },
      ]);
    } else {
      const parsed = parseUntrusted(tool.args, rawArgs ?? {});
      if (!parsed.success && !tool.blocking && tool.kind === "halt") {
        // A stop request always stops: what can be understood of it first, what was wrong after.
        const issues = parsed.issues.slice(0, 20);
        this.#log.warn(
          { call_id: callId, tool: name, issues },
          "halt call with invalid arguments: halting as far as they can be understood",
        );
        const args = tool.understood(rawArgs ?? {});
        result = actedAround(
          await runNonBlocking(
            tool,
            args,
            { read: { ...this.#ctx, imageBudget: images }, halt: this.#haltContextFor(callId, client), callId },
            deadline,
          ),
          issues,
        );
      } else if (!parsed.success) {
        const issues = parsed.issues.slice(0, 20);
        result = rejected(name, "ARMB_ERR_ARGS_INVALID", issues);
        this.#log.info({ call_id: callId, tool: name, issues }, "call rejected: invalid arguments");
      } else if (tool.blocking) {
        // Whatever fails before the intent is durable failed before anything was sent.
        result = await this.#runMotionCall(callId, tool, parsed.data, deadline, client).catch((error: unknown) =>
          failedBeforeSend(tool.name, error, this.#log),
        );
        result = await annotateMotion(tool, parsed.data, result, images, this.#annotation);
      } else {
        // Never gated: a read changes nothing, and stop must always be possible.
        result = await runNonBlocking(
          tool,
          parsed.data,
          { read: { ...this.#ctx, imageBudget: images }, halt: this.#haltContextFor(callId, client), callId },
          deadline,
        );
      }
    }
    const durationMs = this.#now() - startedAt;
    this.metrics.record(name, {
      durationMs,
      status: result.status,
      timedOut: result.timed_out,
      settledBy: result.settled_by,
    });
    this.#events.emit({ type: "settled", callId, tool: name, result, durationMs, client });
    return result;
  }

  /** The halt context of one call: its halts are recorded (with who sent them) before they leave, for the motions they cut short. */
  #haltContextFor(callId: string, client: CallClient | undefined): HaltContext {
    return {
      ...this.#haltCtx,
      halt: (o) => {
        this.arm.haltLog.record({ at: this.#now(), axes: o.axes, callId, client });
        return this.#haltCtx.halt({ ...o, client });
      },
    };
  }

  #runMotionCall(
    callId: string,
    tool: MotionTool,
    args: unknown,
    deadline: CallDeadline,
    client: CallClient | undefined,
  ): Promise<CallResult> {
    return this.#admission.joinOrRun(callId, tool.name, args, async (argsHash) => {
      // A replayed or joined call never gets here: its precheck ran (or not) the first time.
      const refusal = tool.precheck
        ? await precheckMotion(tool, args, deadline, { ctx: this.#ctx, log: this.#log, now: this.#now })
        : undefined;
      return refusal ?? this.#motions.run(callId, tool, args, argsHash, deadline, client);
    });
  }
}
