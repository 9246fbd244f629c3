import { createHash, randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError, asArmbridgeError, type ErrorCode } from "../errors.js";
import type { ActionRow, Evidence } from "../ledger/ActionRow.js";
import { poseOf } from "../ledger/ActionRow.js";
import type { Confirmation, IntentLedger } from "../ledger/IntentLedger.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { ToolMetrics } from "../observability/ToolMetrics.js";
import { checkMotionEnvelope } from "../safety/checkMotionEnvelope.js";
import { toArgIssues } from "../tools/formatIssues.js";
import { observeTargets } from "../tools/observeTargets.js";
import type { HaltTool, MotionTool, ObserveFn, ReadTool, ToolContext } from "../tools/ToolDefinition.js";
import type { ToolRegistry } from "../tools/ToolRegistry.js";
import type { ActionRecord, ArmStatus, MotionCommand, Transport } from "../transport/Transport.js";
import type { CallResponse, CallResult, FunctionCall } from "./CallResult.js";
import { canonicalJson } from "./canonicalJson.js";
import { JointLockTable, LockWaitAborted } from "./JointLockTable.js";
import { observeUntilSettled, type ObserveOutcome } from "./observeUntilSettled.js";
import { Quarantine } from "./Quarantine.js";
import { resultFromRow } from "./resultFromRow.js";
import { resultMessages } from "./resultMessages.js";

export interface ExecutorOptions {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly logger?: Logger;
  readonly metrics?: ToolMetrics;
  readonly now?: () => number;
  readonly newActionId?: () => string;
}

export interface ExecuteOptions {
  /** The run deadline, in ms from now, that every call inherits. */
  readonly deadlineMs?: number | undefined;
  /** Ends waiting for the whole run (e.g. the caller went away); motions are not stopped. */
  readonly signal?: AbortSignal | undefined;
}

/** What the executor reports as calls move along (console, narrative, Live progress). */
export type ExecutorEvent =
  | { readonly type: "queued"; readonly callId: string; readonly tool: string; readonly resources: readonly string[] }
  | { readonly type: "started"; readonly callId: string; readonly tool: string; readonly actionId: string; readonly resources: readonly string[]; readonly budgetMs: number }
  | { readonly type: "timed_out"; readonly callId: string; readonly tool: string; readonly actionId: string }
  | { readonly type: "settled"; readonly callId: string; readonly tool: string; readonly result: CallResult; readonly durationMs: number }
  | { readonly type: "action_resolved"; readonly row: ActionRow };

/** The longest a batch may be: a model turn with more calls than this is a bug or an attack. */
const MAX_BATCH = 64;
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
 */
export class Executor {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly metrics: ToolMetrics;
  readonly locks = new JointLockTable();
  readonly quarantine: Quarantine;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #newActionId: () => string;
  readonly #listeners = new Set<(e: ExecutorEvent) => void>();
  /** Calls under way in this process, by call id: a duplicate id joins the first. */
  readonly #inFlight = new Map<string, { argsHash: string; tool: string; result: Promise<CallResult> }>();
  readonly #shutdown = new AbortController();
  readonly #ctx: ToolContext;
  #unwatch: (() => void) | undefined;

  constructor(options: ExecutorOptions) {
    this.config = options.config;
    this.registry = options.registry;
    this.transport = options.transport;
    this.ledger = options.ledger;
    this.metrics = options.metrics ?? new ToolMetrics();
    this.#log = (options.logger ?? silentLogger).child({ component: "executor" });
    this.#now = options.now ?? Date.now;
    this.#newActionId = options.newActionId ?? newActionId;
    this.quarantine = Quarantine.fromLedger(this.ledger);
    this.#ctx = {
      config: this.config,
      transport: this.transport,
      ledger: this.ledger,
      quarantined: () => this.quarantine.byResource(),
      now: this.#now,
    };
    this.#unwatch = this.transport.onStatus((s) => this.#resolveUnknownsFrom(s));
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
    const run = new AbortController();
    const timer = setTimeout(() => run.abort(), Math.max(0, deadlineMs));
    // Shutting down ends every wait too (never a motion): in-flight rows stay `started` for the next start to reconcile.
    // A listener removed in `finally`, not AbortSignal.any: on Node 20 every signal composed
    // from the long-lived shutdown signal stays referenced by it, growing with each call.
    const onShutdown = (): void => run.abort();
    if (this.#shutdown.signal.aborted) run.abort();
    else this.#shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    const runSignal = options.signal ? AbortSignal.any([run.signal, options.signal]) : run.signal;
    // Every call of the batch listens on the run signal (lock wait, motion wait): up to MAX_BATCH × 2 listeners is expected, not a leak.
    setMaxListeners(MAX_BATCH * 2 + 8, run.signal, runSignal);
    try {
      const ids = calls.map((c, i) => (typeof c.id === "string" && c.id.length > 0 ? c.id : `call_${i}_${randomBytes(4).toString("hex")}`));
      const seen = new Map<string, number>();
      for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
      return await Promise.all(
        calls.map(async (call, i): Promise<CallResponse> => {
          const id = ids[i] ?? "";
          const name = typeof call.name === "string" ? call.name : String(call.name);
          let result: CallResult;
          if (i >= MAX_BATCH) {
            result = rejected(name, "ARMB_ERR_ARGS_INVALID", [{ path: "(batch)", code: "too_big", message: `at most ${MAX_BATCH} calls per batch` }]);
          } else if ((seen.get(id) ?? 0) > 1 && ids.indexOf(id) !== i) {
            result = rejected(name, "ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH", [{ path: "id", code: "duplicate", message: new ArmbridgeError("ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH", { callId: id }).message }]);
          } else {
            result = await this.#executeOne(id, name, call.args, runSignal, deadlineAt);
          }
          return { id, name, result };
        }),
      );
    } finally {
      clearTimeout(timer);
      this.#shutdown.signal.removeEventListener("abort", onShutdown);
    }
  }

  /** An operator's word on an unknown action: lifts its quarantine. */
  confirm(actionId: string, confirmation: Confirmation): ActionRow {
    const row = this.ledger.confirm(actionId, confirmation, this.#now());
    this.quarantine.update(row);
    this.#emit({ type: "action_resolved", row });
    return row;
  }

  /**
   * On start: actions left `started` by a crash are settled by observation,
   * or become `unknown` (quarantined). Nothing is ever re-sent.
   */
  async reconcile(): Promise<ActionRow[]> {
    const rows = this.ledger.inState("started");
    return Promise.all(
      rows.map(async (row) => {
        const command = row.command as MotionCommand | undefined;
        const tool = this.registry.get(row.tool);
        const observe: ObserveFn = tool?.blocking ? tool.observe : observeTargets;
        let outcome: ObserveOutcome | undefined;
        if (command && typeof command === "object" && typeof command.actionId === "string") {
          outcome = await observeUntilSettled({
            transport: this.transport,
            observe,
            command,
            config: this.config,
            // After a crash the arm may also have rebooted: void only what the same incarnation never heard of.
            mayVoid: this.#sameIncarnation(row.armIncarnation),
            signal: this.#shutdown.signal,
            now: this.#now,
          });
        }
        const settled = this.#settleFromObservation(row.actionId, row.tool, outcome, { timedOut: false, why: "the bridge stopped while this motion was under way" });
        this.#log.info({ action_id: row.actionId, state: settled.state }, "reconciled action left started by a previous run");
        return settled;
      }),
    );
  }

  /** Stops watching the arm and ends observations in progress. Motions are not stopped. */
  close(): void {
    this.#shutdown.abort();
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  async #executeOne(callId: string, name: string, rawArgs: unknown, runSignal: AbortSignal, deadlineAt: number): Promise<CallResult> {
    const startedAt = this.#now();
    const tool = this.registry.get(name);
    let result: CallResult;
    if (!tool) {
      result = rejected(name, "ARMB_ERR_TOOL_UNKNOWN", [
        { path: "name", code: "unknown_tool", message: new ArmbridgeError("ARMB_ERR_TOOL_UNKNOWN", { tool: name, known: this.registry.names() }).message },
      ]);
    } else {
      const parsed = tool.args.safeParse(rawArgs ?? {});
      if (!parsed.success) {
        const issues = toArgIssues(parsed.error.issues).slice(0, 20);
        result = rejected(name, "ARMB_ERR_ARGS_INVALID", issues);
        this.#log.info({ call_id: callId, tool: name, issues }, "call rejected: invalid arguments");
      } else if (tool.blocking) {
        // Whatever fails before the intent is durable failed before anything was sent.
        result = await this.#runMotionCall(callId, tool, parsed.data, runSignal, deadlineAt).catch((error: unknown) => this.#failedBeforeSend(tool.name, error));
      } else {
        result = await this.#runNonBlocking(tool, parsed.data, runSignal, deadlineAt);
      }
    }
    const durationMs = this.#now() - startedAt;
    this.metrics.record(name, { durationMs, status: result.status, timedOut: result.timed_out, settledBy: result.settled_by });
    this.#emit({ type: "settled", callId, tool: name, result, durationMs });
    return result;
  }

  async #runNonBlocking(tool: ReadTool | HaltTool, args: unknown, runSignal: AbortSignal, deadlineAt: number): Promise<CallResult> {
    // A halt ignores the run deadline: stopping must always be possible.
    const budget = tool.kind === "halt" ? tool.timeoutMs : Math.min(tool.timeoutMs, deadlineAt - this.#now());
    if (budget <= 0 || (tool.kind === "read" && runSignal.aborted)) {
      return { status: "skipped", error_code: "ARMB_ERR_DEADLINE_SPENT", message: resultMessages.skipped(tool.name), timed_out: false, settled_by: "none" };
    }
    const wait = new AbortController();
    const timer = setTimeout(() => wait.abort(), budget);
    try {
      const out = await tool.run(args, this.#ctx, wait.signal);
      return {
        status: "done",
        message: out.message,
        timed_out: false,
        settled_by: "completion",
        ...(out.pose ? { pose: out.pose } : {}),
        output: out.data,
      };
    } catch (error) {
      const e = asArmbridgeError(error);
      // A read that failed had no effect; say so plainly.
      return { status: "failed", reason: e.message, message: resultMessages.failed(tool.name, undefined, e.message), timed_out: wait.signal.aborted, settled_by: "completion" };
    } finally {
      clearTimeout(timer);
    }
  }

  async #runMotionCall(callId: string, tool: MotionTool, args: unknown, runSignal: AbortSignal, deadlineAt: number): Promise<CallResult> {
    const argsHash = hashArgs(tool.name, args);
    const running = this.#inFlight.get(callId);
    if (running) {
      if (running.argsHash !== argsHash || running.tool !== tool.name) return this.#reusedId(callId, tool.name, undefined);
      return { ...(await running.result), replayed: true };
    }
    const recorded = this.ledger.findByCallId(callId);
    if (recorded) {
      if (recorded.argsHash !== argsHash || recorded.tool !== tool.name) return this.#reusedId(callId, tool.name, recorded.actionId);
      this.#log.info({ call_id: callId, action_id: recorded.actionId }, "call id seen before: returning the recorded result, executing nothing");
      return { ...resultFromRow(recorded), replayed: true };
    }
    const result = this.#runMotion(callId, tool, args, argsHash, runSignal, deadlineAt);
    this.#inFlight.set(callId, { argsHash, tool: tool.name, result });
    try {
      return await result;
    } finally {
      this.#inFlight.delete(callId);
    }
  }

  async #runMotion(callId: string, tool: MotionTool, args: unknown, argsHash: string, runSignal: AbortSignal, deadlineAt: number): Promise<CallResult> {
    const resources = [...new Set(tool.resources(args))].sort();
    const isBlocked = (): CallResult | undefined => {
      const b = this.quarantine.blocking(resources);
      if (b.actionIds.length === 0) return undefined;
      return {
        status: "blocked",
        error_code: "ARMB_ERR_QUARANTINED",
        blocked_by: b.actionIds,
        resources: b.resources,
        message: resultMessages.blocked(tool.name, b.resources, b.actionIds),
        timed_out: false,
        settled_by: "none",
      };
    };
    const skipped: CallResult = { status: "skipped", error_code: "ARMB_ERR_DEADLINE_SPENT", message: resultMessages.skipped(tool.name), timed_out: false, settled_by: "none" };

    const blockedBefore = isBlocked();
    if (blockedBefore) return blockedBefore;
    if (runSignal.aborted || deadlineAt - this.#now() <= 0) return skipped;

    this.#emit({ type: "queued", callId, tool: tool.name, resources });
    let lease;
    try {
      lease = await this.locks.acquire(resources, runSignal);
    } catch (error) {
      if (error instanceof LockWaitAborted) return skipped;
      throw error;
    }
    /** Set once the intent is durable: from then on the command may have left. */
    let sentActionId: string | undefined;
    try {
      // An action on these joints may have become unknown while we queued.
      const blockedAfter = isBlocked();
      if (blockedAfter) return blockedAfter;
      const budgetMs = Math.min(tool.timeoutMs, deadlineAt - this.#now());
      if (budgetMs <= 0 || runSignal.aborted) return skipped;

      const plan = tool.plan(args, this.#ctx);
      // Every motion, whatever tool planned it, passes the envelope before its intent is recorded.
      const admission = plan.refusal ?? checkMotionEnvelope(this.config, poseOf(this.transport.latestStatus()), plan.targets, tool.name);
      if (!admission.ok) return rejected(tool.name, admission.code, admission.issues);
      const command: MotionCommand = { actionId: this.#newActionId(), targets: plan.targets, speed: plan.speed };
      // The intent is durable before a single byte leaves for the arm.
      const armIncarnation = this.transport.armIncarnation?.();
      await this.ledger.recordIntentDurably({ actionId: command.actionId, callId, tool: tool.name, args, argsHash, resources, command, armIncarnation }, this.#now());
      sentActionId = command.actionId;
      const log = this.#log.child({ action_id: command.actionId, call_id: callId, tool: tool.name });
      log.info({ targets: command.targets, speed: command.speed, budget_ms: budgetMs, resources }, "motion sent");
      this.#emit({ type: "started", callId, tool: tool.name, actionId: command.actionId, resources, budgetMs });

      const wait = new AbortController();
      const timer = setTimeout(() => wait.abort(), budgetMs);
      const onRunAbort = (): void => wait.abort();
      runSignal.addEventListener("abort", onRunAbort, { once: true });
      let end;
      try {
        end = await this.transport.runMotion(command, wait.signal);
      } finally {
        clearTimeout(timer);
        runSignal.removeEventListener("abort", onRunAbort);
      }

      if (end.kind !== "ended" && end.kind !== "refused" && this.#shutdown.signal.aborted) {
        return this.#leftForReconciliation(command.actionId, tool.name, resources);
      }
      let timedOut = false;
      let initialRecord: ActionRecord | undefined;
      switch (end.kind) {
        case "ended": {
          const o = tool.observe({ command, config: this.config, status: this.transport.latestStatus(), record: end.record, nowMs: this.#now() });
          if (o.verdict === "reached") return this.#settle(command.actionId, tool.name, "done", { settledBy: "completion", timedOut: false, record: end.record, notes: o.notes, resources });
          if (o.verdict === "not_moved")
            return this.#settle(command.actionId, tool.name, "failed", { settledBy: "completion", timedOut: false, record: end.record, notes: o.notes, reason: o.notes.join("; "), resources });
          if (o.verdict === "interrupted")
            return this.#settle(command.actionId, tool.name, "unknown", { settledBy: "none", timedOut: false, record: end.record, notes: o.notes, why: `${o.notes.join("; ")} — short of its target`, resources });
          initialRecord = end.record;
          break;
        }
        case "refused":
          return this.#settle(command.actionId, tool.name, "failed", {
            settledBy: "completion",
            timedOut: false,
            notes: [end.reason],
            reason: `the arm refused it (${end.reason})`,
            record: { actionId: command.actionId, state: "rejected", moved: false, detail: end.reason },
            resources,
          });
        case "wait_ended":
          timedOut = true;
          log.info({ budget_ms: budgetMs }, "wait ended by timeout; the motion is not stopped and not re-sent; observing");
          this.#emit({ type: "timed_out", callId, tool: tool.name, actionId: command.actionId });
          break;
        case "link_error":
          log.warn({ err: end.error.toJSON() }, "link failed while waiting; observing");
          break;
      }

      const outcome = await observeUntilSettled({
        transport: this.transport,
        observe: tool.observe,
        command,
        config: this.config,
        initialRecord,
        mayVoid: this.#sameIncarnation(armIncarnation),
        signal: this.#shutdown.signal,
        now: this.#now,
      });
      log.info({ verdict: outcome.verdict, observed_ms: outcome.waitedMs }, "observation finished");
      if (outcome.verdict === "undetermined" && this.#shutdown.signal.aborted) return this.#leftForReconciliation(command.actionId, tool.name, resources);
      const row = this.#settleFromObservation(command.actionId, tool.name, outcome, {
        timedOut,
        why: timedOut ? `our wait timed out after ${budgetMs} ms (a timeout is not a failure) and observing the arm for ${outcome.waitedMs} ms was inconclusive` : "the link failed and observing the arm was inconclusive",
      });
      return resultFromRow(row);
    } catch (error) {
      if (sentActionId === undefined) throw error;
      return this.#faultAfterIntent(sentActionId, tool.name, resources, error);
    } finally {
      lease.release();
    }
  }

  /**
   * The bridge is shutting down while this motion may still run: the row is
   * left `started`, like a crash, so the next start reconciles it against the
   * arm instead of an operator having to.
   */
  #leftForReconciliation(actionId: string, toolName: string, resources: readonly string[]): CallResult {
    this.#log.warn({ action_id: actionId }, "shutting down mid-motion: left started, to be reconciled at the next start");
    return {
      status: "unknown",
      action_id: actionId,
      resources,
      message: resultMessages.unknown(toolName, actionId, "the bridge shut down while the motion was under way; it will be checked against the arm when the bridge starts again", resources),
      timed_out: false,
      settled_by: "none",
    };
  }

  /** An internal fault before the intent was durable: nothing was sent, so a re-run is safe. */
  #failedBeforeSend(toolName: string, error: unknown): CallResult {
    const e = asArmbridgeError(error);
    this.#log.error({ tool: toolName, err: e.toJSON() }, "call failed before anything was sent");
    if (e.code === "ARMB_ERR_CALL_ID_REUSED") return rejected(toolName, e.code, [{ path: "id", code: "reused", message: e.message }]);
    const reason = `an internal error before anything was sent (${e.code}: ${e.message})`;
    return { status: "failed", reason, message: resultMessages.failed(toolName, undefined, reason), timed_out: false, settled_by: "none" };
  }

  /**
   * An internal fault after the intent was durable (the ledger could not
   * settle it, say): the command may have left, so the outcome is unknown and
   * the resources are held in this process even if the ledger cannot say so.
   */
  #faultAfterIntent(actionId: string, toolName: string, resources: readonly string[], error: unknown): CallResult {
    const e = asArmbridgeError(error);
    this.#log.error({ action_id: actionId, tool: toolName, err: e.toJSON() }, "internal fault after the intent was recorded; holding its resources");
    this.quarantine.hold(actionId, resources);
    return {
      status: "unknown",
      action_id: actionId,
      resources,
      message: resultMessages.unknown(toolName, actionId, `an internal error after the command may have left (${e.code}: ${e.message})`, resources),
      timed_out: false,
      settled_by: "none",
    };
  }

  #settleFromObservation(actionId: string, toolName: string, outcome: ObserveOutcome | undefined, ctx: { timedOut: boolean; why: string }): ActionRow {
    const base = { timedOut: ctx.timedOut, record: outcome?.record, status: outcome?.status, notes: outcome?.notes ?? [] };
    switch (outcome?.verdict) {
      case "reached":
        this.#settle(actionId, toolName, "done", { ...base, settledBy: "observation" });
        break;
      case "not_moved":
        this.#settle(actionId, toolName, "failed", { ...base, settledBy: "observation", reason: outcome.notes.join("; ") });
        break;
      case "interrupted":
        this.#settle(actionId, toolName, "unknown", { ...base, settledBy: "none", why: `${outcome.notes.join("; ")} — short of its target` });
        break;
      case "undetermined":
      case undefined:
        this.#settle(actionId, toolName, "unknown", { ...base, settledBy: "none", why: ctx.why });
        break;
    }
    return this.ledger.mustGet(actionId);
  }

  #settle(
    actionId: string,
    toolName: string,
    state: "done" | "failed" | "unknown",
    s: {
      settledBy: "completion" | "observation" | "none";
      timedOut: boolean;
      record?: ActionRecord | undefined;
      status?: ArmStatus | undefined;
      notes: readonly string[];
      reason?: string;
      why?: string;
      resources?: readonly string[];
    },
  ): CallResult {
    const status = s.status ?? this.transport.latestStatus();
    const evidence: Evidence = { pose: poseOf(status), poseStampMs: status?.stampMs, record: s.record, notes: s.notes };
    const resources = s.resources ?? this.ledger.get(actionId)?.resources ?? [];
    let message: string;
    switch (state) {
      case "done":
        message = resultMessages.done(toolName, actionId, s.settledBy === "none" ? "observation" : s.settledBy, s.timedOut);
        break;
      case "failed":
        message = resultMessages.failed(toolName, actionId, s.reason ?? "the arm reports no motion");
        break;
      case "unknown":
        message = resultMessages.unknown(toolName, actionId, s.why ?? "no conclusive evidence", resources);
        break;
    }
    const row = this.ledger.settle(actionId, { state, timedOut: s.timedOut, settledBy: s.settledBy, message, evidence }, this.#now());
    this.quarantine.update(row);
    if (row.state === "unknown") this.#log.warn({ action_id: actionId, resources }, "action unknown: its resources are quarantined until an operator confirms");
    return resultFromRow(row);
  }

  /** Whether the arm still has the memory it had when a command was sent (so its "unknown" is evidence). */
  #sameIncarnation(recorded: string | undefined): boolean {
    const current = this.transport.armIncarnation?.();
    // An arm that names no incarnation keeps no action memory we could lose track of.
    if (recorded === undefined && current === undefined) return true;
    return recorded !== undefined && recorded === current;
  }

  #reusedId(callId: string, toolName: string, actionId: string | undefined): CallResult {
    const e = new ArmbridgeError("ARMB_ERR_CALL_ID_REUSED", { callId, tool: toolName, actionId: actionId ?? "in flight" });
    return rejected(toolName, "ARMB_ERR_CALL_ID_REUSED", [{ path: "id", code: "reused", message: e.message }]);
  }

  /** Later observation: an unknown action the arm now reports as finished is settled without an operator. */
  #resolveUnknownsFrom(status: ArmStatus): void {
    if (status.actions.length === 0) return;
    for (const actionId of this.quarantine.actionIds()) {
      const record = status.actions.find((a) => a.actionId === actionId);
      if (!record) continue;
      const row = this.ledger.get(actionId);
      if (!row || row.state !== "unknown") continue;
      const command = row.command as MotionCommand;
      const tool = this.registry.get(row.tool);
      const observe = tool?.blocking ? tool.observe : observeTargets;
      const o = observe({ command, config: this.config, status, record, nowMs: this.#now() });
      if (o.verdict !== "reached" && o.verdict !== "not_moved") continue;
      const settled = this.ledger.settle(
        actionId,
        {
          state: o.verdict === "reached" ? "done" : "failed",
          timedOut: row.timedOut,
          settledBy: "observation",
          message: o.verdict === "reached" ? resultMessages.done(row.tool, actionId, "observation", row.timedOut) : resultMessages.failed(row.tool, actionId, o.notes.join("; ")),
          evidence: { pose: poseOf(status), poseStampMs: status.stampMs, record, notes: ["settled by a later observation", ...o.notes] },
        },
        this.#now(),
      );
      this.quarantine.update(settled);
      this.#log.info({ action_id: actionId, state: settled.state }, "unknown action settled by a later observation");
      this.#emit({ type: "action_resolved", row: settled });
    }
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

function rejected(tool: string, code: ErrorCode, issues: readonly { path: string; code: string; message: string }[]): CallResult {
  return {
    status: "rejected",
    error_code: code,
    issues,
    message: resultMessages.rejected(tool, issues.map((i) => `${i.path}: ${i.message}`).join("; ")),
    timed_out: false,
    settled_by: "none",
  };
}

function hashArgs(tool: string, args: unknown): string {
  return createHash("sha256").update(canonicalJson({ tool, args })).digest("hex");
}

/** `act_` + time (base36) + 48 random bits: sortable, unique, 23 ASCII bytes (fits the serial protocol). */
export function newActionId(): string {
  return `act_${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;
}

