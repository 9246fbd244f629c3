import { setMaxListeners } from "node:events";
import { EnvelopeModel } from "../safety/EnvelopeModel.js";
import type { EnvelopeContact } from "../safety/EnvelopeContact.js";
import { InFlightMotions } from "../safety/InFlightMotions.js";
import { MotionRateLimit } from "../safety/MotionRateLimit.js";
import { withoutData, type CameraImage, type ResultImage } from "../cameras/CameraImage.js";
import { base64Bytes, ImageBudget } from "../cameras/ImageBudget.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError, asArmbridgeError } from "../errors.js";
import { canonicalOutcome, type ActionRow } from "../ledger/ActionRow.js";
import type { CallClient } from "../ledger/CallClient.js";
import { poseOf } from "../transport/poseOf.js";
import type { Confirmation } from "../ledger/ActionSettlements.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import { normaliseOperatorName } from "../ledger/operatorName.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { ToolMetrics } from "./ToolMetrics.js";
import { parseUntrusted } from "../validation/parseUntrusted.js";
import type { HaltContext, MotionTool, ReadContext } from "./ToolDefinition.js";
import type { ToolRegistry } from "./ToolRegistry.js";
import type { LinkLoss, LinkState, Transport } from "../transport/Transport.js";
import { ActionSettler } from "./ActionSettler.js";
import { ApprovalDesk } from "./ApprovalDesk.js";
import { CallAdmission } from "./CallAdmission.js";
import { MAX_BATCH } from "../wire/limits.js";
import { CallDeadline } from "./CallDeadline.js";
import { checkApprovalRules } from "./approvalRules.js";
import { CONFIRM_OUTCOME_RULES } from "../ledger/confirmOutcomes.js";
import type { CallResponse, CallResult, FunctionCall } from "./CallResult.js";
import { actedAround, rejected } from "./callResults.js";
import type { ExecutorEvent } from "./ExecutorEvent.js";
import { clientOfHalt, HaltLatch, type HaltOutcome, type HaltRequest } from "./HaltLatch.js";
import { whoHalted, type HaltRow } from "../ledger/HaltRow.js";
import { HaltLog } from "./HaltLog.js";
import { JointLockTable } from "./JointLockTable.js";
import { messageOf } from "./messageOf.js";
import { MotionRunner } from "./MotionRunner.js";
import { inFlightOfRow } from "./inFlightOfRow.js";
import { newActionId } from "./newActionId.js";
import { OperatorPresence, type PresenceLapse } from "./OperatorPresence.js";
import { Quarantine } from "./Quarantine.js";
import type { RecordedObservationDeps } from "./observeRecordedAction.js";
import { reconcileStarted } from "./reconcileStarted.js";
import { reobserveAfterReturn } from "./reobserveAfterReturn.js";
import { resolveUnknownsFrom } from "./resolveLater.js";
import { resultMessages } from "./resultMessages.js";
import { runNonBlocking } from "./runNonBlocking.js";

export type { ExecutorEvent } from "./ExecutorEvent.js";
export { newActionId } from "./newActionId.js";

export interface ExecutorOptions {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly logger?: Logger;
  readonly metrics?: ToolMetrics;
  readonly now?: () => number;
  readonly newActionId?: () => string;
  /**
   * Pictures to attach to a motion's result once it settled (cameras with
   * `attach_to_results`). Never throws: a camera that fails is left out, and
   * the motion's result stands as it is.
   */
  readonly imagesAfterMotion?: ((signal: AbortSignal) => Promise<readonly CameraImage[]>) | undefined;
}

/** How long a motion's result may wait for its attached pictures. */
const ATTACH_IMAGES_MS = 3000;

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

/** An envelope refusal with the call that met it and when (epoch ms). */
export type EnvelopeRefusalRecord = EnvelopeContact & {
  readonly call_id: string;
  readonly tool: string;
  readonly at_ms: number;
};

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
 * The parts: CallAdmission (batch and call-id checks, in-flight joins,
 * recorded replays), MotionRunner (the motion path), ActionSettler (the one
 * settlement path), resolveUnknownsFrom (later observation).
 */
export class Executor {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly metrics: ToolMetrics;
  readonly locks = new JointLockTable();
  readonly quarantine: Quarantine;
  /** Calls waiting for an operator's approve / decline (config `approval`). */
  readonly approvals: ApprovalDesk;
  /** The halt latch: on from any halt until an operator releases it; every motion is refused meanwhile. */
  readonly halts: HaltLatch;
  /** limits.motions_per_minute: the bridge's one bucket, undefined when not configured. */
  readonly motionRate: MotionRateLimit | undefined;
  /** Hold-to-run (config operator_presence.required): consoles' heartbeats; undefined when not configured. */
  readonly presence: OperatorPresence | undefined;
  #lastEnvelopeRefusal: EnvelopeRefusalRecord | undefined;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #listeners = new Set<(e: ExecutorEvent) => void>();
  readonly #shutdown = new AbortController();
  readonly #ctx: ReadContext;
  readonly #haltCtx: HaltContext;
  readonly #admission: CallAdmission;
  readonly #settler: ActionSettler;
  readonly #motions: MotionRunner;
  readonly #imagesAfterMotion: ExecutorOptions["imagesAfterMotion"];
  /** Every halt sent, with the client that asked for it: a motion a halt cut short names them. */
  readonly #haltLog = new HaltLog();
  /** Motions that may be moving the arm now: the envelope check of every new motion accounts for them. */
  readonly #inFlight = new InFlightMotions();
  #unwatch: (() => void) | undefined;
  #unwatchLink: (() => void) | undefined;
  /** The newest link loss (or arm restart) already answered, so each return is looked at once. */
  #answeredLoss: LinkLoss | undefined;

  constructor(options: ExecutorOptions) {
    this.config = options.config;
    this.registry = options.registry;
    this.transport = options.transport;
    this.ledger = options.ledger;
    this.metrics =
      options.metrics ?? new ToolMetrics({ isKnownTool: (name) => options.registry.get(name) !== undefined });
    this.#log = (options.logger ?? silentLogger).child({ component: "executor" });
    this.#now = options.now ?? Date.now;
    this.#imagesAfterMotion = options.imagesAfterMotion;
    this.quarantine = Quarantine.fromLedger(this.ledger);
    for (const warning of checkApprovalRules(this.config, this.registry))
      this.#log.warn({ config: "approval" }, warning);
    // Built now, once: the first motion should not pay for compiling the envelope (link volumes, pairs).
    EnvelopeModel.of(this.config);
    const perMinute = this.config.limits.motionsPerMinute;
    this.motionRate = perMinute === undefined ? undefined : new MotionRateLimit(perMinute, this.#now());
    this.#ctx = {
      config: this.config,
      latestStatus: () => this.transport.latestStatus(),
      action: (actionId) => this.ledger.get(actionId),
      quarantined: () => this.quarantine.byResource(),
      // Read when a tool runs, after the latch below exists.
      halted: () => this.halts.engaged,
      now: this.#now,
    };
    const emit = (e: ExecutorEvent): void => this.#emit(e);
    this.halts = new HaltLatch({
      ledger: this.ledger,
      transport: this.transport,
      log: this.#log,
      now: this.#now,
      onChange: (c) => {
        // A HALT ends every approval request first: none may be approved into a motion after its release.
        if (c.kind === "halted") this.#declineApprovalsFor(c.halt);
        emit(c.kind === "halted" ? { type: "halted", halt: c.halt } : { type: "halt_released", halts: c.halts });
      },
    });
    const presence = this.config.operatorPresence;
    this.presence = presence
      ? new OperatorPresence({
          timeoutMs: presence.timeoutMs,
          now: this.#now,
          log: this.#log,
          onLapse: (lapse) => this.#onPresenceLapse(lapse),
          onChange: () => emit({ type: "presence_changed" }),
        })
      : undefined;
    this.#haltCtx = {
      ...this.#ctx,
      halt: (o) => this.halts.halt({ source: "tool", callId: o.callId, axes: o.axes, client: o.client }, o.signal),
    };
    this.approvals = new ApprovalDesk({
      timeoutMs: this.config.approvalTimeoutMs,
      now: this.#now,
      onRequested: (approval) =>
        emit({
          type: "approval_requested",
          callId: approval.call_id,
          tool: approval.tool,
          approval,
          client: approval.client ?? undefined,
        }),
      onResolved: (approval) =>
        emit({
          type: "approval_resolved",
          callId: approval.call_id,
          tool: approval.tool,
          approval,
          client: approval.client ?? undefined,
        }),
    });
    this.#admission = new CallAdmission(this.ledger, this.#log);
    this.#settler = new ActionSettler({
      ledger: this.ledger,
      quarantine: this.quarantine,
      transport: this.transport,
      log: this.#log,
      now: this.#now,
      onResolved: (row) => emit({ type: "action_resolved", row }),
    });
    this.#motions = new MotionRunner({
      config: this.config,
      transport: this.transport,
      ledger: this.ledger,
      locks: this.locks,
      quarantine: this.quarantine,
      approvals: this.approvals,
      settler: this.#settler,
      ctx: this.#ctx,
      log: this.#log,
      now: this.#now,
      newActionId: options.newActionId ?? newActionId,
      emit,
      shutdown: this.#shutdown.signal,
      inFlight: this.#inFlight,
      halts: this.halts,
      haltLog: this.#haltLog,
      motionRate: this.motionRate,
      presence: this.presence,
      onEnvelopeRefusal: (r) => {
        this.#lastEnvelopeRefusal = { call_id: r.callId, tool: r.tool, at_ms: this.#now(), ...r.contact };
      },
    });
    this.restoreInFlightFromLedger();
    const later = {
      config: this.config,
      registry: this.registry,
      ledger: this.ledger,
      quarantine: this.quarantine,
      settler: this.#settler,
      now: this.#now,
    };
    this.#unwatch = this.transport.onStatus((s) => resolveUnknownsFrom(s, later));
    // A loss from before this executor existed was answered by reconciliation at start.
    this.#answeredLoss = this.transport.linkState().last_loss;
    this.#unwatchLink = this.transport.onLinkState((state) => this.#onLinkState(state));
  }

  /**
   * The arm answers again after a loss of its link, or came back as a new
   * incarnation behind a link that stayed up: say so, and look again at
   * every unknown action (reobserveAfterReturn). What was in flight was
   * never re-sent; calls still waiting on it settle by their own observation.
   */
  #onLinkState(state: LinkState): void {
    const loss = state.last_loss;
    if (
      state.state !== "connected" ||
      !loss ||
      loss.returned_at === undefined ||
      loss === this.#answeredLoss ||
      this.#shutdown.signal.aborted
    )
      return;
    if (
      this.#answeredLoss &&
      this.#answeredLoss.lost_at === loss.lost_at &&
      this.#answeredLoss.returned_at === loss.returned_at
    )
      return;
    this.#answeredLoss = loss;
    const unknown = this.ledger.inState("unknown").map((r) => r.actionId);
    this.#log.warn(
      { loss, reobserving: unknown },
      "the arm's link came back: nothing is re-sent; unknown actions are looked at again",
    );
    this.#emit({ type: "link_returned", loss, incarnation: state.incarnation, reobserving: unknown });
    if (unknown.length === 0) return;
    void reobserveAfterReturn(this.#recordedObservationDeps()).catch((error: unknown) =>
      this.#log.error(
        { err: asArmbridgeError(error).toJSON() },
        "looking again at unknown actions after the link came back failed",
      ),
    );
  }

  /** The newest refusal by the safety envelope (link, obstacle, where, clearance), for GET /v1/state and a 3D view; undefined before any. */
  get lastEnvelopeRefusal(): EnvelopeRefusalRecord | undefined {
    return this.#lastEnvelopeRefusal;
  }

  /** Subscribe to progress events; returns the unsubscribe function. */
  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
   * at this moment and lifts the quarantine on what the outcome releases
   * (CONFIRM_OUTCOME_RULES).
   */
  confirm(actionId: string, confirmation: Confirmation): ActionRow {
    const current = this.ledger.get(actionId);
    const outcome = canonicalOutcome(confirmation.outcome);
    const rule = CONFIRM_OUTCOME_RULES[outcome];
    const status = this.transport.latestStatus();
    const pose = poseOf(status);
    const observed = confirmation.observed ?? (status && pose ? { pose, stampMs: status.stampMs } : undefined);
    const operator = normaliseOperatorName(confirmation.operator);
    // Before anything is derived from it: a name of invisible characters is no name.
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_OPERATOR_REQUIRED", { actionId });
    // The row's words follow its new state, written together with it (one truth per row).
    const message =
      current &&
      messageOf({
        ...current,
        state: rule.state,
        settledBy: "operator",
        operator,
        operatorNote: confirmation.note,
        operatorOutcome: outcome,
        observed,
      });
    const row = this.ledger.confirm(actionId, { ...confirmation, outcome, observed }, this.#now(), message);
    this.quarantine.update(row);
    // Whatever the outcome does not release stays held in this process.
    const kept = row.resources.filter((r) => !rule.releases(row).includes(r));
    if (kept.length > 0) this.quarantine.hold(row.actionId, kept);
    this.#log.info(
      { action_id: actionId, outcome, operator, observed_pose: observed?.pose },
      "operator confirmed an unknown action",
    );
    this.#emit({ type: "action_resolved", row });
    return row;
  }

  /**
   * A halt asked by a person (console, CLI, HTTP): sent at once, latching the
   * bridge until an operator releases it. Resolves once the arm answered, or
   * after the stop tool's timeout (then it counts as not confirmed).
   * The `stop` tool goes the same way.
   */
  halt(request: HaltRequest): Promise<HaltOutcome> {
    // Logged before it leaves, under who asked (the console's HALT as the console client): a motion it cuts short names them.
    this.#haltLog.record({
      at: this.#now(),
      axes: request.axes,
      callId: request.callId,
      client: clientOfHalt(request),
    });
    return this.halts.halt(request, AbortSignal.timeout(this.config.timeoutsMs.stop));
  }

  /**
   * Presence was lost: with a motion under way (sent, or about to be) the
   * arm is halted and the bridge latched, as by a HALT; with none, nothing
   * moves and the next motion is refused by the gate itself.
   */
  #onPresenceLapse(lapse: PresenceLapse): void {
    if (lapse.motions.length === 0 || this.#shutdown.signal.aborted) return;
    const note = `operator_presence: ${lapse.reason}; motions under way: ${lapse.motions.join(", ")}`;
    this.#log.error(
      { motions: lapse.motions, operator: lapse.operator, reason: lapse.reason },
      "operator presence lost mid-motion: halting the arm",
    );
    // halt() never rejects; its outcome reaches the console as `halted` events.
    void this.halt({ source: "presence", operator: lapse.operator, note });
  }

  /**
   * Declines every pending approval request because of `halt`: each waiting
   * call is answered (rejected, nothing sent) with the halt's id and who
   * halted. The HALT is their operator's word too, even before the arm answers it.
   */
  #declineApprovalsFor(halt: HaltRow): void {
    if (this.approvals.pendingCount === 0) return;
    const who = whoHalted(halt);
    const note = `${who} halted the arm at ${new Date(halt.haltedAt).toISOString()} before anyone approved it`;
    const declined = this.approvals.declineAll({ operator: halt.operator ?? who, note, haltId: halt.haltId });
    this.#log.warn(
      { halt_id: halt.haltId, approvals: declined.map((a) => a.id), calls: declined.map((a) => a.call_id) },
      "the halt declined every pending approval request; nothing of them was sent",
    );
  }

  /** An operator's release of the halt latch, by name (ARMB_ERR_OPERATOR_REQUIRED without one, ARMB_ERR_NOT_HALTED when there is none). */
  releaseHalt(release: { readonly operator: string; readonly note?: string | undefined }): HaltRow[] {
    const operator = normaliseOperatorName(release.operator);
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_RELEASE_OPERATOR_REQUIRED");
    return this.halts.release(operator, release.note);
  }

  /**
   * Counts every motion the ledger holds `started` or `unknown` as in flight
   * for the envelope, over its whole recorded path (inFlightOfRow), until it
   * is settled or confirmed. Runs at construction — a start, an adopted
   * ledger — and is for the link lifecycle to call when the arm's link comes
   * back: the arm did not stop for our outage. Motions whose runs are in this
   * process keep their own entries. Returns the action ids added.
   */
  restoreInFlightFromLedger(): string[] {
    const added: string[] = [];
    for (const row of [...this.ledger.inState("started"), ...this.ledger.inState("unknown")]) {
      if (this.#inFlight.restore(row.actionId, inFlightOfRow(row, this.config))) added.push(row.actionId);
    }
    if (added.length > 0)
      this.#log.warn(
        { action_ids: added },
        "motions not known to be over count as in flight for the envelope until settled or confirmed",
      );
    return added;
  }

  /**
   * On start: actions left `started` by a crash are settled by observation,
   * or become `unknown` (quarantined). Nothing is ever re-sent.
   */
  async reconcile(): Promise<ActionRow[]> {
    return reconcileStarted(this.#recordedObservationDeps());
  }

  /** What reconciliation at start and re-observation after a link returns share: the one path that observes recorded actions. */
  #recordedObservationDeps(): RecordedObservationDeps {
    return {
      config: this.config,
      registry: this.registry,
      transport: this.transport,
      ledger: this.ledger,
      settler: this.#settler,
      log: this.#log,
      now: this.#now,
      signal: this.#shutdown.signal,
    };
  }

  /** Stops watching the arm and ends observations in progress. Motions are not stopped. */
  close(): void {
    this.#shutdown.abort();
    this.presence?.close();
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.#unwatchLink?.();
    this.#unwatchLink = undefined;
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
          this.#failedBeforeSend(tool.name, error),
        );
        result = await this.#annotateMotion(tool, parsed.data, result, images);
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
    this.#emit({ type: "settled", callId, tool: name, result, durationMs, client });
    return result;
  }

  /** The halt context of one call: its halts are recorded (with who sent them) before they leave, for the motions they cut short. */
  #haltContextFor(callId: string, client: CallClient | undefined): HaltContext {
    return {
      ...this.#haltCtx,
      halt: (o) => {
        this.#haltLog.record({ at: this.#now(), axes: o.axes, callId, client });
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
      const refusal = tool.precheck ? await this.#precheck(tool, args, deadline.signal, deadline.at) : undefined;
      return refusal ?? this.#motions.run(callId, tool, args, argsHash, deadline, client);
    });
  }

  /** A tool's asynchronous precondition, bounded by the run deadline: a refusal is `failed` with its code, before anything is recorded or sent. */
  async #precheck(
    tool: MotionTool,
    args: unknown,
    runSignal: AbortSignal,
    deadlineAt: number,
  ): Promise<CallResult | undefined> {
    const budget = Math.min(tool.timeoutMs, deadlineAt - this.#now());
    const wait = AbortSignal.any([runSignal, AbortSignal.timeout(Math.max(0, budget))]);
    const refusal = await tool.precheck?.(args, this.#ctx, wait);
    if (!refusal) return undefined;
    this.#log.info(
      { tool: tool.name, code: refusal.code, reason: refusal.reason },
      "call refused by its precheck; nothing was sent",
    );
    return {
      status: "failed",
      error_code: refusal.code,
      reason: refusal.reason,
      message: resultMessages.failed(tool.name, undefined, refusal.reason),
      timed_out: false,
      settled_by: "none",
    };
  }

  /**
   * What a motion's result carries besides the ledger's verdict: the tool's
   * `context` (derived from the arguments), and, for a motion that was sent
   * now (not a replay), fresh pictures taken after it settled.
   */
  async #annotateMotion(tool: MotionTool, args: unknown, result: CallResult, budget: ImageBudget): Promise<CallResult> {
    let context: Readonly<Record<string, unknown>> | undefined;
    try {
      context = tool.context?.(args, this.#ctx);
    } catch (error) {
      this.#log.warn(
        { tool: tool.name, err: asArmbridgeError(error).toJSON() },
        "tool context failed; result left without it",
      );
    }
    let images: readonly ResultImage[] = [];
    const sent =
      "action_id" in result &&
      result.action_id !== undefined &&
      result.replayed !== true &&
      result.status !== "rejected";
    if (sent && this.#imagesAfterMotion) {
      try {
        images = withinBudget(
          await this.#imagesAfterMotion(
            AbortSignal.any([this.#shutdown.signal, AbortSignal.timeout(ATTACH_IMAGES_MS)]),
          ),
          budget,
        );
      } catch (error) {
        this.#log.warn(
          { tool: tool.name, err: asArmbridgeError(error).toJSON() },
          "attaching camera frames failed; result left without them",
        );
      }
    }
    if (!context && images.length === 0) return result;
    return { ...result, ...(context ? { context } : {}), ...(images.length > 0 ? { images } : {}) };
  }

  /** An internal fault before the intent was durable: nothing was sent, so a re-run is safe. */
  #failedBeforeSend(toolName: string, error: unknown): CallResult {
    const e = asArmbridgeError(error);
    this.#log.error({ tool: toolName, err: e.toJSON() }, "call failed before anything was sent");
    if (e.code === "ARMB_ERR_CALL_ID_REUSED")
      return rejected(toolName, e.code, [{ path: "id", code: "reused", message: e.message }]);
    const reason = `an internal error before anything was sent (${e.code}: ${e.message})`;
    return {
      status: "failed",
      error_code: e.code,
      reason,
      message: resultMessages.failed(toolName, undefined, reason),
      timed_out: false,
      settled_by: "none",
    };
  }

  #emit(event: ExecutorEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch (error) {
        this.#log.error({ err: asArmbridgeError(error).toJSON() }, "event listener threw");
      }
    }
  }
}

/** Frames attached after a motion, counted against the response's budget: one that does not fit keeps its description and says it was not delivered. */
function withinBudget(images: readonly CameraImage[], budget: ImageBudget): ResultImage[] {
  return images.map((image) => {
    const bytes = base64Bytes(image.data);
    if (budget.take(bytes)) return image;
    return {
      ...withoutData(image),
      delivered_as: `not delivered: this response already carries ${budget.usedBytes} of its ${budget.limitBytes} bytes of pictures (ask for it with get_camera_image in a later turn)`,
    };
  });
}
