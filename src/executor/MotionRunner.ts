import type { ArmConfig } from "../config/ArmConfig.js";
import { asArmbridgeError } from "../errors.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import type { CallClient } from "../ledger/CallClient.js";
import type { Logger } from "../observability/logger.js";
import type { MotionTool, ReadContext } from "./ToolDefinition.js";
import type { MotionCommand, MotionEnd, Transport } from "../transport/Transport.js";
import type { ActionSettler } from "./ActionSettler.js";
import type { ApprovalRecord } from "../ledger/ActionRow.js";
import type { ApprovalDesk, DecidedApprovalView } from "./ApprovalDesk.js";
import { approvalNeeded } from "./approvalRules.js";
import type { CallDeadline } from "./CallDeadline.js";
import { admitPlan } from "./admitPlan.js";
import { actuatorsOf } from "../config/actuators.js";
import { ArmbridgeError } from "../errors.js";
import { axisPeaks } from "../motion/axisPeaks.js";
import { armClock, armTimer, type ArmClock, type ArmTimerEnd } from "./ArmClock.js";
import { paceWords, reportPace } from "./reportPace.js";
import { checkMotionEnvelope } from "../safety/checkMotionEnvelope.js";
import type { EnvelopeContact } from "../safety/EnvelopeContact.js";
import type { InFlightMotion, InFlightMotions } from "../safety/InFlightMotions.js";
import type { MotionRateLimit } from "../safety/MotionRateLimit.js";
import { limitToolSpeed } from "../safety/toolSpeedLimit.js";
import { poseOf } from "../transport/poseOf.js";
import type { CallResult } from "./CallResult.js";
import {
  blocked,
  blockedByHalt,
  blockedByShutDown,
  blockedForPresence,
  linkDown,
  notApproved,
  rejected,
  skipped,
} from "./callResults.js";
import type { HaltLatch } from "./HaltLatch.js";
import type { OperatorPresence } from "./OperatorPresence.js";
import type { HaltRow } from "../ledger/HaltRow.js";
import type { Verdict } from "./Verdict.js";
import type { ExecutorEvent } from "./ExecutorEvent.js";
import type { HaltLog } from "./HaltLog.js";
import { LockWaitAborted, type JointLockTable } from "./JointLockTable.js";
import { observeUntilSettled } from "./observeUntilSettled.js";
import type { Quarantine } from "./Quarantine.js";
import { resultFromRow } from "./resultFromRow.js";
import { resultMessages } from "./resultMessages.js";
import { sameIncarnation } from "./sameIncarnation.js";

export interface MotionRunnerDeps {
  readonly config: ArmConfig;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly locks: JointLockTable;
  readonly quarantine: Quarantine;
  readonly approvals: ApprovalDesk;
  readonly settler: ActionSettler;
  readonly ctx: ReadContext;
  readonly log: Logger;
  readonly now: () => number;
  readonly newActionId: () => string;
  readonly emit: (event: ExecutorEvent) => void;
  /** Ends every wait (never a motion) when the bridge shuts down. */
  readonly shutdown: AbortSignal;
  /** Motions that may be moving the arm now; a new one's envelope check accounts for them. */
  readonly inFlight: InFlightMotions;
  /** The halt latch: while it is on, nothing is sent; a halt the arm confirmed explains a motion it cut short. */
  readonly halts: HaltLatch;
  /** Halts sent through the executor, with who sent them: a motion one cut short names them when it settles. */
  readonly haltLog: HaltLog;
  /** limits.motions_per_minute, one bucket for the bridge; undefined when not configured. */
  readonly motionRate: MotionRateLimit | undefined;
  /** Hold-to-run (operator_presence.required); undefined when not configured. */
  readonly presence: OperatorPresence | undefined;
  /** Told of every envelope refusal (GET /v1/state keeps the last one for a 3D view). */
  readonly onEnvelopeRefusal: (refusal: {
    readonly callId: string;
    readonly tool: string;
    readonly contact: EnvelopeContact;
  }) => void;
}

/** What admission lets through: the speed to send (maybe lowered for the tool-speed limit) and what it means per axis. */
interface Admitted {
  readonly speed: number;
  readonly peakVelocity: InFlightMotion["peakVelocity"];
  /** Set when the tool-speed limit lowered the speed: the plan's own, and the bounds either side (m/s). */
  readonly slowed: { readonly requested: number; readonly requestedMps: number; readonly toolMps: number } | undefined;
}

/**
 * The motion path of one admitted call: quarantine, locks, plan, plan
 * admission, durable intent, send, settle. Idempotency and batch checks
 * happened before (CallAdmission); every verdict goes through the one
 * settlement path (ActionSettler).
 */
export class MotionRunner {
  readonly #d: MotionRunnerDeps;

  constructor(deps: MotionRunnerDeps) {
    this.#d = deps;
  }

  async run(
    callId: string,
    tool: MotionTool,
    args: unknown,
    argsHash: string,
    deadline: CallDeadline,
    client: CallClient | undefined,
  ): Promise<CallResult> {
    const d = this.#d;
    const runSignal = deadline.signal;
    const resources = [...new Set(tool.resources(args))].sort();
    const isBlocked = (): CallResult | undefined => {
      const halt = d.halts.engaged;
      if (halt) return blockedByHalt(tool.name, resources, halt);
      const absent = d.presence?.missing();
      if (absent !== undefined) {
        d.log.info(
          { call_id: callId, tool: tool.name, missing: absent },
          "call refused: operator_presence is required and no operator is present; nothing sent",
        );
        return blockedForPresence(tool.name, resources, absent);
      }
      const b = d.quarantine.blocking(resources);
      return b.actionIds.length === 0 ? undefined : blocked(tool.name, b.resources, b.actionIds);
    };

    const blockedBefore = isBlocked();
    if (blockedBefore) return blockedBefore;
    if (runSignal.aborted || deadline.at - d.now() <= 0) return skipped(tool.name, deadline.end);

    d.emit({ type: "queued", callId, tool: tool.name, resources, client });
    let lease;
    try {
      lease = await d.locks.acquire(resources, runSignal);
    } catch (error) {
      if (error instanceof LockWaitAborted) return skipped(tool.name, deadline.end);
      throw error;
    }
    /** Set once the intent is durable: from then on the command may have left. */
    let sentActionId: string | undefined;
    /** Set once the motion passed the envelope and counts as in flight. */
    let admittedActionId: string | undefined;
    /** Set while the motion counts as under way for operator presence. */
    let presenceHeld: string | undefined;
    let outcome: CallResult | undefined;
    try {
      // An action on these joints may have become unknown while we queued.
      const blockedAfter = isBlocked();
      if (blockedAfter) return blockedAfter;
      // No motion is recorded or sent while the arm's link is not connected (nothing could tell what it did).
      const unlinked = this.#linkDown(tool.name);
      if (unlinked) return unlinked;
      if (Math.min(tool.timeoutMs, deadline.at - d.now()) <= 0 || runSignal.aborted)
        return skipped(tool.name, deadline.end);

      const plan = await tool.plan(args, d.ctx, runSignal);
      // A remote IK answer took time: the run may have ended meanwhile, and nothing is sent then.
      let budgetMs = Math.min(tool.timeoutMs, deadline.at - d.now());
      if (runSignal.aborted || budgetMs <= 0) return skipped(tool.name, deadline.end);
      // A tool's own refusal (an unreachable Cartesian target) speaks first, with its own code.
      if (plan.refusal && !plan.refusal.ok) return rejected(tool.name, plan.refusal.code, plan.refusal.issues);
      // A servo that shut down answers nothing until an operator recovers it: blocked before any intent.
      const shutDown = this.#servosShutDown(tool.name, resources, plan.targets);
      if (shutDown) return shutDown;
      let admitted = this.#admit(callId, tool, plan);
      if ("refusal" in admitted) return admitted.refusal;

      // An operator's approval, when the config asks for it: waited for here, holding the locks,
      // before anything is recorded or sent. The wait stops the call's deadline clock.
      const why = approvalNeeded(d.config.approval[tool.name], plan.targets);
      /** Who approved, recorded with the intent: the only durable record of the operator's yes. */
      let approval: ApprovalRecord | undefined;
      if (why !== undefined) {
        // A halt that came while it planned: no request is opened under it (a halt declines every open one).
        const blockedBeforeRequest = isBlocked();
        if (blockedBeforeRequest) return blockedBeforeRequest;
        const request = { callId, tool: tool.name, args, resources, targets: plan.targets, why, client };
        d.log.info(
          { call_id: callId, tool: tool.name, targets: plan.targets, why },
          "waiting for an operator's approval; nothing sent",
        );
        const decided = await deadline.paused(() => d.approvals.request(request, deadline.runSignal));
        if (decided.decision !== "approved") return this.#notApproved(tool.name, decided);
        d.log.info(
          { call_id: callId, tool: tool.name, approval: decided.id, operator: decided.operator },
          "approved by an operator",
        );
        approval = {
          approvalId: decided.id,
          operator: decided.operator ?? "",
          at: decided.decided_at,
          note: decided.note ?? undefined,
        };
        // The world may have moved on while the operator looked: the same checks again, on the arm's pose now.
        const blockedNow = isBlocked();
        if (blockedNow) return blockedNow;
        const shutDownNow = this.#servosShutDown(tool.name, resources, plan.targets);
        if (shutDownNow) return shutDownNow;
        admitted = this.#admit(callId, tool, plan);
        if ("refusal" in admitted) return admitted.refusal;
        const unlinkedNow = this.#linkDown(tool.name);
        if (unlinkedNow) return unlinkedNow;
        // The paused clock moved the deadline back by the wait: the budget is what was left before it.
        budgetMs = Math.min(tool.timeoutMs, deadline.at - d.now());
        if (budgetMs <= 0 || runSignal.aborted) return skipped(tool.name, deadline.end);
      }
      // Every motion, whatever tool planned it, passed the workspace envelope in #admit on this pose,
      // in the same tick: nothing can have moved in between.
      const pose = poseOf(d.transport.latestStatus());
      // The motion rate's token, taken in that same tick, once nothing else can refuse the motion.
      const rate = d.motionRate?.take(d.now());
      if (rate && !rate.ok) return this.#rateLimited(callId, tool.name, rate.retryAfterMs);
      // Presence again in this same tick: from here on a lapse halts the arm (the halt check after the intent catches it).
      const absentNow = d.presence?.missing();
      if (absentNow !== undefined) return blockedForPresence(tool.name, resources, absentNow);
      const command: MotionCommand = { actionId: d.newActionId(), targets: plan.targets, speed: admitted.speed };
      d.presence?.motionBegins(command.actionId);
      presenceHeld = command.actionId;
      // Registered before the intent is written: from here on the motion may be moving the arm.
      d.inFlight.add({
        actionId: command.actionId,
        from: pose ?? {},
        to: plan.targets,
        ...(admitted.peakVelocity ? { peakVelocity: admitted.peakVelocity } : {}),
      });
      admittedActionId = command.actionId;
      // The intent is durable before a single byte leaves for the arm.
      const armIncarnation = d.transport.identity?.incarnation();
      // The ledger keeps the pose the motion starts from beside what was sent: an operator judging an
      // unknown later needs "where was it before" as much as "where was it going" (the console draws both),
      // and a later start rebuilds the motion's whole path from it for the envelope (inFlightOfRow).
      const slowed = admitted.slowed;
      const recorded = { ...command, from: pose ?? null, ...(slowed ? { requested_speed: slowed.requested } : {}) };
      const sentAt = d.now();
      await d.ledger.recordIntentDurably(
        {
          actionId: command.actionId,
          callId,
          tool: tool.name,
          args,
          argsHash,
          resources,
          command: recorded,
          armIncarnation,
          client,
          approval,
        },
        sentAt,
      );
      sentActionId = command.actionId;
      // A halt that came while the intent was being written: recorded, never sent.
      const haltNow = d.halts.engaged;
      if (haltNow) {
        outcome = this.#notSentForHalt(command, haltNow);
        return outcome;
      }
      const log = d.log.child({ action_id: command.actionId, call_id: callId, tool: tool.name });
      if (slowed) {
        log.info(
          {
            requested_speed: slowed.requested,
            speed: command.speed,
            tool_mps_requested: slowed.requestedMps,
            tool_mps: slowed.toolMps,
            limit_mps: d.config.limits.maxToolSpeedMps,
          },
          "slowed for limits.max_tool_speed_mps",
        );
      }
      log.info({ targets: command.targets, speed: command.speed, budget_ms: budgetMs, resources }, "motion sent");
      d.emit({ type: "started", callId, tool: tool.name, actionId: command.actionId, resources, budgetMs, client });

      // The budget and the observation after it are counted in the arm's time: a speed slider stretches them, a pause stops them.
      const clock = armClock(d.transport, Object.keys(command.targets), d.now);
      const stopReporting = reportPace(
        clock,
        { callId, tool: tool.name, actionId: command.actionId, client },
        d.emit,
        log,
      );
      try {
        // A sent motion is followed to its end: the caller going away does not end this wait (motionSignal).
        const { end, waitEnd } = await this.#awaitMotion(command, budgetMs, deadline.motionSignal, clock);
        outcome = await this.#settle({
          callId,
          tool,
          command,
          resources,
          budgetMs,
          armIncarnation,
          end,
          waitEnd,
          clock,
          log,
          sentAt,
          client,
        });
      } finally {
        stopReporting();
        clock.dispose();
      }
      return outcome;
    } catch (error) {
      if (sentActionId === undefined) throw error;
      outcome = this.#faultAfterIntent(sentActionId, tool.name, resources, error);
      return outcome;
    } finally {
      if (presenceHeld !== undefined) d.presence?.motionEnds(presenceHeld);
      // A motion whose end is unknown may still be moving: it stays in flight until resolved.
      if (admittedActionId !== undefined)
        d.inFlight.end(admittedActionId, {
          unresolved: outcome === undefined ? sentActionId !== undefined : outcome.status === "unknown",
        });
      lease.release();
    }
  }

  /**
   * Plan admission, the workspace envelope, the tool-speed limit and the
   * motion rate, on the arm's latest pose: a refusal, or the speed to send.
   */
  #admit(
    callId: string,
    tool: MotionTool,
    plan: Awaited<ReturnType<MotionTool["plan"]>>,
  ): { readonly refusal: CallResult } | Admitted {
    const d = this.#d;
    const refusals = admitPlan({
      tool,
      plan,
      config: d.config,
      status: d.transport.latestStatus(),
      wire: d.transport.wire,
    });
    if (refusals.length > 0) {
      d.log.info(
        { call_id: callId, tool: tool.name, issues: refusals },
        "call rejected: the planned motion was refused",
      );
      return { refusal: rejected(tool.name, "ARMB_ERR_PLAN_REJECTED", refusals) };
    }
    // Every motion, whatever tool planned it, passes the workspace envelope before its intent is
    // recorded — together with every motion still in flight on other joints, at any progress of theirs.
    // A motion whose outcome is unknown is in flight until an operator answers: refusals beside it say so, naming it.
    const inFlight = d.inFlight
      .current((id) => stillUnsettled(id, d))
      .map((m) => (awaitsOperator(m.actionId, d) ? { ...m, awaitingOperator: true } : m));
    const pose = poseOf(d.transport.latestStatus());
    const envelope = checkMotionEnvelope(d.config, pose, plan.targets, tool.name, inFlight);
    if (!envelope.ok) {
      if (envelope.contact) d.onEnvelopeRefusal({ callId, tool: tool.name, contact: envelope.contact });
      d.log.info(
        { call_id: callId, tool: tool.name, code: envelope.code, contact: envelope.contact },
        "call rejected by the safety envelope; nothing sent",
      );
      const result = rejected(tool.name, envelope.code, envelope.issues);
      return {
        refusal: envelope.contact && result.status === "rejected" ? { ...result, envelope: envelope.contact } : result,
      };
    }
    const timing = d.transport.timing?.motionTiming();
    const limited = limitToolSpeed({
      config: d.config,
      pose,
      targets: plan.targets,
      speed: plan.speed,
      inFlight,
      timing,
      transport: d.transport.kind,
      tool: tool.name,
    });
    if (!limited.ok) {
      d.log.info(
        { call_id: callId, tool: tool.name, issues: limited.issues },
        "call rejected: limits.max_tool_speed_mps; nothing sent",
      );
      return { refusal: rejected(tool.name, limited.code, limited.issues) };
    }
    const slowed =
      limited.requestedMps !== undefined && limited.toolMps !== undefined
        ? { requested: plan.speed, requestedMps: limited.requestedMps, toolMps: limited.toolMps }
        : undefined;
    if (slowed) {
      // Slower is longer: the slowed motion must still be one whose outcome can be confirmed in time.
      const tooSlow = admitPlan({
        tool,
        plan: { ...plan, speed: limited.speed },
        config: d.config,
        status: d.transport.latestStatus(),
      });
      if (tooSlow.length > 0) {
        const reason = `slowed to speed ${limited.speed.toFixed(3)} to stay under it, ${tooSlow.map((i) => i.message).join("; ")}`;
        const e = new ArmbridgeError("ARMB_ERR_TOOL_SPEED_LIMIT", {
          tool: tool.name,
          speed: slowed.requestedMps.toFixed(3),
          limit: d.config.limits.maxToolSpeedMps ?? "",
          reason,
        });
        return {
          refusal: rejected(tool.name, e.code, [{ path: "plan.speed", code: "tool_speed_limit", message: e.message }]),
        };
      }
    }
    const rate = d.motionRate?.check(d.now());
    if (rate && !rate.ok) return { refusal: this.#rateLimited(callId, tool.name, rate.retryAfterMs) };
    const peakVelocity =
      timing && pose
        ? axisPeaks(timing, plan.targets, pose, limited.speed, new Map(actuatorsOf(d.config).map((a) => [a.name, a])))
            .velocity
        : undefined;
    return { speed: limited.speed, peakVelocity, slowed };
  }

  #rateLimited(callId: string, toolName: string, retryAfterMs: number): CallResult {
    const limit = this.#d.motionRate?.perMinute ?? 0;
    const e = new ArmbridgeError("ARMB_ERR_MOTION_RATE_LIMITED", { tool: toolName, limit, retryAfterMs });
    this.#d.log.info(
      { call_id: callId, tool: toolName, retry_after_ms: retryAfterMs },
      "call rejected: limits.motions_per_minute; nothing sent",
    );
    const result = rejected(toolName, e.code, [{ path: "(rate)", code: "rate_limited", message: e.message }]);
    return result.status === "rejected" ? { ...result, retry_after_ms: retryAfterMs } : result;
  }

  #linkDown(toolName: string): CallResult | undefined {
    const link = this.#d.transport.linkState();
    if (link.state === "connected") return undefined;
    this.#d.log.info(
      { tool: toolName, link },
      "call failed: the arm's link is not connected; nothing recorded or sent",
    );
    return linkDown(toolName, this.#d.transport.kind, link);
  }

  /** Declined, expired or withdrawn: `rejected`, nothing recorded or sent, in words that say what happened. */
  #notApproved(toolName: string, decided: DecidedApprovalView): CallResult {
    this.#d.log.info(
      {
        call_id: decided.call_id,
        tool: toolName,
        approval: decided.id,
        decision: decided.decision,
        operator: decided.operator,
      },
      "not approved; nothing sent",
    );
    return notApproved(toolName, decided, this.#d.approvals.timeoutMs);
  }

  /** Waits on the motion for `budgetMs` of the arm's time (or a pause of observe.pause_max_ms), or until the run ends. */
  async #awaitMotion(
    command: MotionCommand,
    budgetMs: number,
    runSignal: AbortSignal,
    clock: ArmClock,
  ): Promise<{ end: MotionEnd; waitEnd: ArmTimerEnd | undefined }> {
    const wait = new AbortController();
    let waitEnd: ArmTimerEnd | undefined;
    const timer = armTimer(
      clock,
      () => budgetMs,
      this.#d.config.observe.pauseMaxMs,
      (why) => {
        waitEnd = why;
        wait.abort();
      },
    );
    const onRunAbort = (): void => wait.abort();
    runSignal.addEventListener("abort", onRunAbort, { once: true });
    try {
      const end = await this.#d.transport.runMotion(command, wait.signal);
      return { end, waitEnd };
    } finally {
      timer.cancel();
      runSignal.removeEventListener("abort", onRunAbort);
    }
  }

  async #settle(m: {
    callId: string;
    tool: MotionTool;
    command: MotionCommand;
    resources: readonly string[];
    budgetMs: number;
    armIncarnation: string | undefined;
    end: MotionEnd;
    /** Why our wait ended, when our own budget ended it. */
    waitEnd: ArmTimerEnd | undefined;
    clock: ArmClock;
    log: Logger;
    sentAt: number;
    client: CallClient | undefined;
  }): Promise<CallResult> {
    const d = this.#d;
    const { command, tool, end, log } = m;
    /** The newest halt sent since this motion left that covers its axes, looked up when its verdict is written. */
    const halt = (): ReturnType<HaltLog["latestSince"]> =>
      d.haltLog.latestSince(m.sentAt, Object.keys(command.targets));
    if (end.kind !== "ended" && end.kind !== "refused" && d.shutdown.aborted)
      return this.#leftForReconciliation(command.actionId, tool.name, m.resources);
    let timedOut = false;
    let initialRecord;
    switch (end.kind) {
      case "ended": {
        // The arm's terminal report: a record that can no longer start again.
        const o = tool.observe({
          command,
          config: d.config,
          status: d.transport.latestStatus(),
          record: end.record,
          nowMs: d.now(),
        });
        const ctx = { by: "completion", timedOut: false, record: end.record, notes: o.notes, halt: halt() } as const;
        switch (o.verdict) {
          case "reached":
            return resultFromRow(
              d.settler.settle(command.actionId, { kind: "reached", ...(o.detail ? { detail: o.detail } : {}) }, ctx),
            );
          case "not_moved":
            return resultFromRow(
              d.settler.settle(command.actionId, { kind: "not_moved", reason: o.notes.join("; ") }, ctx),
            );
          case "interrupted":
            return resultFromRow(
              d.settler.settle(
                command.actionId,
                await this.#haltExplains({ kind: "interrupted", detail: o.notes.join("; ") }, m.sentAt),
                ctx,
              ),
            );
          case "in_progress":
          case "no_evidence":
            initialRecord = end.record;
            break;
        }
        break;
      }
      case "refused": {
        const row = resultFromRow(
          d.settler.settle(
            command.actionId,
            // The transport's own refusal (the link dropped between admission and sending) is not the arm's.
            {
              kind: "not_moved",
              reason: end.error.code === "ARMB_ERR_LINK_DOWN" ? end.reason : `the arm refused it (${end.reason})`,
            },
            {
              by: "completion",
              timedOut: false,
              notes: [end.reason],
              record: { actionId: command.actionId, state: "rejected", moved: false, detail: end.reason },
              halt: halt(),
            },
          ),
        );
        // A servo that shut down between admission and sending: the row says nothing moved, the model is told to wait for its recovery.
        return end.error.code === "ARMB_ERR_SERVO_TRIPPED"
          ? (this.#servosShutDown(tool.name, m.resources, command.targets) ?? row)
          : row;
      }
      case "wait_ended":
        timedOut = true;
        log.info(
          { budget_ms: m.budgetMs, wait_end: m.waitEnd ?? "run ended" },
          "wait ended by timeout; the motion is not stopped and not re-sent; observing",
        );
        d.emit({ type: "timed_out", callId: m.callId, tool: tool.name, actionId: command.actionId, client: m.client });
        break;
      case "link_error":
        log.warn({ err: end.error.toJSON() }, "link failed while waiting; observing");
        break;
    }

    const outcome = await observeUntilSettled({
      transport: d.transport,
      observe: tool.observe,
      command,
      config: d.config,
      initialRecord,
      mayVoid: sameIncarnation(m.armIncarnation, d.transport.identity?.incarnation()),
      signal: d.shutdown,
      now: d.now,
      clock: m.clock,
    });
    log.info({ verdict: outcome.verdict.kind, observed_ms: outcome.waitedMs }, "observation finished");
    if (outcome.verdict.kind === "undetermined" && d.shutdown.aborted)
      return this.#leftForReconciliation(command.actionId, tool.name, m.resources);
    const pace = m.clock.pace();
    const paused = outcome.pausedForMs !== undefined || m.waitEnd === "paused";
    const judged =
      outcome.verdict.kind === "undetermined"
        ? {
            kind: "undetermined" as const,
            why: paused
              ? `the arm is ${pace ? paceWords(pace) : "paused"} and has been for ${Math.round((m.clock.pausedForMs() ?? 0) / 1000)} s: the motion stands where it stopped and goes on when it is resumed (a pause is neither a timeout nor a failure)`
              : timedOut
                ? `our wait timed out after ${m.budgetMs} ms of the arm's time${pace && pace.factor < 0.95 ? ` (it was ${paceWords(pace)})` : ""} (a timeout is not a failure) and observing the arm for ${outcome.waitedMs} ms was inconclusive`
                : "the link failed and observing the arm was inconclusive",
          }
        : outcome.verdict;
    const verdict = await this.#haltExplains(judged, m.sentAt);
    return resultFromRow(
      d.settler.settle(command.actionId, verdict, {
        by: "observation",
        timedOut,
        record: outcome.record,
        status: outcome.status,
        notes: outcome.notes,
        halt: halt(),
      }),
    );
  }

  /** `blocked` when a servo of these axes shut down on a hardware error (servo buses report it; other arms never do). */
  #servosShutDown(
    tool: string,
    resources: readonly string[],
    targets: Readonly<Record<string, number>>,
  ): CallResult | undefined {
    const down = (this.#d.transport.servos?.health() ?? []).filter((h) => h.shut_down && h.axis in targets);
    if (down.length === 0) return undefined;
    this.#d.log.warn(
      { tool, servos: down.map((h) => h.servo_id), axes: down.map((h) => h.axis) },
      "motion refused: a servo shut down and awaits an operator's recovery; nothing sent",
    );
    return blockedByShutDown(tool, resources, down);
  }

  /**
   * A motion that moved and ended short of its target while a halt sent after
   * it started was open: once the arm confirmed that halt, the halt explains
   * it — it stopped where the arm reports it, by the halt (`halted`), and no
   * one need be asked. A halt the arm did not confirm explains nothing: the
   * verdict stands (`unknown`, joints quarantined).
   */
  async #haltExplains(verdict: Verdict, sentAt: number): Promise<Verdict> {
    if (verdict.kind !== "interrupted") return verdict;
    const answer = this.#d.halts.answerSince(sentAt);
    if (!answer) return verdict;
    const halt = await answer;
    return halt.confirmed === true ? { kind: "halted", halt } : verdict;
  }

  /** The intent is durable but a halt came first: nothing was sent, and the row says so (positive evidence: it never left). */
  #notSentForHalt(command: MotionCommand, halt: HaltRow): CallResult {
    const reason = `the bridge was halted (${halt.haltId}) before it was sent; nothing left for the arm`;
    this.#d.log.warn(
      { action_id: command.actionId, halt_id: halt.haltId },
      "halt latched while the intent was written: not sent",
    );
    return resultFromRow(
      this.#d.settler.settle(
        command.actionId,
        { kind: "not_moved", reason },
        {
          by: "completion",
          timedOut: false,
          notes: [reason],
          record: { actionId: command.actionId, state: "rejected", moved: false, detail: reason },
        },
      ),
    );
  }

  /**
   * The bridge is shutting down while this motion may still run: the row is
   * left `started`, like a crash, so the next start reconciles it against the
   * arm instead of an operator having to.
   */
  #leftForReconciliation(actionId: string, toolName: string, resources: readonly string[]): CallResult {
    this.#d.log.warn(
      { action_id: actionId },
      "shutting down mid-motion: left started, to be reconciled at the next start",
    );
    return {
      status: "unknown",
      action_id: actionId,
      resources,
      message: resultMessages.unknown(
        toolName,
        actionId,
        "the bridge shut down while the motion was under way; it will be checked against the arm when the bridge starts again",
        resources,
      ),
      timed_out: false,
      settled_by: "none",
    };
  }

  /**
   * An internal fault after the intent was durable (the ledger could not
   * settle it, say): the command may have left, so the outcome is unknown and
   * the resources are held in this process even if the ledger cannot say so.
   */
  #faultAfterIntent(actionId: string, toolName: string, resources: readonly string[], error: unknown): CallResult {
    const e = asArmbridgeError(error);
    this.#d.log.error(
      { action_id: actionId, tool: toolName, err: e.toJSON() },
      "internal fault after the intent was recorded; holding its resources",
    );
    this.#d.quarantine.hold(actionId, resources);
    return {
      status: "unknown",
      action_id: actionId,
      resources,
      message: resultMessages.unknown(
        toolName,
        actionId,
        `an internal error after the command may have left (${e.code}: ${e.message})`,
        resources,
      ),
      timed_out: false,
      settled_by: "none",
    };
  }
}

/**
 * Whether a motion not known to be over may still be moving the arm: its row
 * is `started` or `unknown`, or this process holds its resources because the
 * ledger could not record its end. A ledger that cannot answer counts as yes.
 */
function stillUnsettled(actionId: string, d: Pick<MotionRunnerDeps, "quarantine" | "ledger">): boolean {
  if (d.quarantine.holds(actionId)) return true;
  try {
    const state = d.ledger.get(actionId)?.state;
    return state === undefined || state === "started" || state === "unknown";
  } catch {
    return true;
  }
}

/** Whether an action's outcome is unknown and waits for an operator's confirmation (it will not end by itself). */
function awaitsOperator(actionId: string, d: Pick<MotionRunnerDeps, "quarantine" | "ledger">): boolean {
  if (d.quarantine.holds(actionId)) return true;
  try {
    return d.ledger.get(actionId)?.state === "unknown";
  } catch {
    return false;
  }
}
