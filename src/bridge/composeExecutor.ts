import type { CameraImage } from "../cameras/CameraImage.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { ActionSettler } from "../executor/motion/ActionSettler.js";
import { ApprovalDesk } from "../executor/operator/ApprovalDesk.js";
import { checkApprovalRules } from "../executor/operator/approvalRules.js";
import { ArmState } from "../executor/arm/ArmState.js";
import { CallAdmission } from "../executor/calls/CallAdmission.js";
import { Executor } from "../executor/Executor.js";
import type { EnvelopeRefusalRecord } from "../executor/ExecutorParts.js";
import { ExecutorEvents } from "../executor/ExecutorEvents.js";
import { HaltLatch, type HaltRequest } from "../executor/arm/HaltLatch.js";
import { MotionRunner } from "../executor/motion/MotionRunner.js";
import { newActionId } from "../executor/calls/newActionId.js";
import { declineApprovalsFor, haltOnPresenceLapse } from "../executor/operator/operatorHalts.js";
import { OperatorPresence, type PresenceLapse } from "../executor/operator/OperatorPresence.js";
import { Quarantine } from "../executor/arm/Quarantine.js";
import { resolveUnknownsFrom } from "../executor/reconciliation/resolveLater.js";
import { restoreInFlight } from "../executor/reconciliation/restoreInFlight.js";
import type { ReadContext } from "../executor/toolContract/ToolDefinition.js";
import { ToolMetrics } from "../executor/calls/ToolMetrics.js";
import type { ToolRegistry } from "../executor/toolContract/ToolRegistry.js";
import { haltOnArmStop } from "../executor/operator/haltOnArmStop.js";
import { watchLinkReturns } from "../executor/reconciliation/watchLinkReturns.js";
import type { ActionRow } from "../ledger/ActionRow.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { EnvelopeModel } from "../safety/EnvelopeModel.js";
import { MotionRateLimit } from "../safety/MotionRateLimit.js";
import type { Transport } from "../transport/Transport.js";

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

/**
 * Builds an executor and everything it works with, for one arm: its state
 * (locks, quarantine, in flight, halt latch), operator presence, approvals,
 * admission, the settlement path, the motion path, and the watches on the
 * transport that settle unknown actions later.
 */
export function composeExecutor(options: ExecutorOptions): Executor {
  const { config, registry, transport, ledger } = options;
  const log = (options.logger ?? silentLogger).child({ component: "executor" });
  const now = options.now ?? Date.now;
  const metrics = options.metrics ?? new ToolMetrics({ isKnownTool: (name) => registry.get(name) !== undefined });
  for (const warning of checkApprovalRules(config, registry)) log.warn({ config: "approval" }, warning);
  // Built now, once: the first motion should not pay for compiling the envelope (link volumes, pairs).
  EnvelopeModel.of(config);
  const perMinute = config.limits.motionsPerMinute;
  const motionRate = perMinute === undefined ? undefined : new MotionRateLimit(perMinute, now());
  const events = new ExecutorEvents(log);
  const emit = events.emit;
  const shutdown = new AbortController();
  const approvals = newApprovalDesk(config, now, emit);
  const arm = newArmState({ ledger, transport, log, now, emit }, approvals);
  const halt = (request: HaltRequest) => arm.halt(request, now(), AbortSignal.timeout(config.timeoutsMs.stop));
  const presence = newPresence(config, { log, now, emit }, (lapse) =>
    haltOnPresenceLapse(lapse, { log, shutdown: shutdown.signal, halt }),
  );
  const ctx = readContextOf(config, { ledger, transport, now }, arm);
  const quarantine = arm.quarantine;
  const onResolved = (row: ActionRow) => emit({ type: "action_resolved", row });
  const settler = new ActionSettler({ ledger, quarantine, transport, log, now, onResolved });
  const envelopeRefusal: { last: EnvelopeRefusalRecord | undefined } = { last: undefined };
  const motions = new MotionRunner({
    config,
    transport,
    ledger,
    arm,
    approvals,
    settler,
    ctx,
    log,
    now,
    newActionId: options.newActionId ?? newActionId,
    emit,
    shutdown: shutdown.signal,
    motionRate,
    presence,
    onEnvelopeRefusal: (r) => {
      envelopeRefusal.last = { call_id: r.callId, tool: r.tool, at_ms: now(), ...r.contact };
    },
  });
  const recorded = { config, registry, transport, ledger, settler, log, now, signal: shutdown.signal };
  restoreInFlight(arm.inFlight, { ledger, config, log });
  const later = { config, registry, ledger, quarantine, settler, now };
  const watches = [
    transport.onStatus((s) => resolveUnknownsFrom(s, later)),
    watchLinkReturns({ transport, ledger, log, emit, recorded }),
    haltOnArmStop({ transport, log, shutdown: shutdown.signal, halt }),
  ];
  return new Executor({
    config,
    registry,
    transport,
    ledger,
    metrics,
    log,
    now,
    arm,
    approvals,
    presence,
    motionRate,
    admission: new CallAdmission(ledger, log),
    motions,
    events,
    shutdown,
    envelopeRefusal,
    ctx,
    recorded,
    imagesAfterMotion: options.imagesAfterMotion,
    halt,
    watches,
  });
}

function newApprovalDesk(config: ArmConfig, now: () => number, emit: ExecutorEvents["emit"]): ApprovalDesk {
  return new ApprovalDesk({
    timeoutMs: config.approvalTimeoutMs,
    now,
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
}

interface Wiring {
  readonly ledger: IntentLedger;
  readonly transport: Transport;
  readonly log: Logger;
  readonly now: () => number;
  readonly emit: ExecutorEvents["emit"];
}

/** The arm's state, its halt latch telling the console of every change and declining open approvals on a halt. */
function newArmState(w: Wiring, approvals: ApprovalDesk): ArmState {
  const { ledger, transport, log, now, emit } = w;
  const halts = new HaltLatch({
    ledger,
    transport,
    log,
    now,
    onChange: (c) => {
      // A HALT ends every approval request first: none may be approved into a motion after its release.
      if (c.kind === "halted") declineApprovalsFor(c.halt, approvals, log);
      emit(c.kind === "halted" ? { type: "halted", halt: c.halt } : { type: "halt_released", halts: c.halts });
    },
  });
  return new ArmState({ quarantine: Quarantine.fromLedger(ledger), halts });
}

/** Hold-to-run, when operator_presence is configured. */
function newPresence(
  config: ArmConfig,
  w: Pick<Wiring, "log" | "now" | "emit">,
  onLapse: (lapse: PresenceLapse) => void,
): OperatorPresence | undefined {
  const presence = config.operatorPresence;
  return presence
    ? new OperatorPresence({
        timeoutMs: presence.timeoutMs,
        now: w.now,
        log: w.log,
        onLapse,
        onChange: () => w.emit({ type: "presence_changed" }),
      })
    : undefined;
}

/** What every tool may read: the config, the arm's latest status, the ledger's rows, what is quarantined or halted. */
function readContextOf(config: ArmConfig, w: Pick<Wiring, "ledger" | "transport" | "now">, arm: ArmState): ReadContext {
  return {
    config,
    latestStatus: () => w.transport.latestStatus(),
    action: (actionId) => w.ledger.get(actionId),
    quarantined: () => arm.quarantine.byResource(),
    halted: () => arm.halts.engaged,
    now: w.now,
  };
}
