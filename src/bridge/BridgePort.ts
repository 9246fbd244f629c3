import type { Cameras } from "../cameras/Cameras.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import type { ApprovalView, DecidedApprovalView } from "../executor/operator/ApprovalDesk.js";
import type { CallResponse, FunctionCall } from "../executor/calls/CallResult.js";
import type { ExecuteOptions } from "../executor/Executor.js";
import type { ExecutorEvent } from "../executor/ExecutorEvent.js";
import type { HaltOutcome, HaltRequest } from "../executor/arm/HaltLatch.js";
import type { PresenceSnapshot } from "../executor/operator/OperatorPresence.js";
import type { ToolDefinition } from "../executor/toolContract/ToolDefinition.js";
import type { FunctionDeclaration } from "../executor/toolContract/ToolRegistry.js";
import type { ActionRow } from "../ledger/ActionRow.js";
import type { ActionRowState } from "../wire/vocabulary.js";
import type { Confirmation } from "../ledger/ActionSettlements.js";
import type { HaltRow } from "../ledger/HaltRow.js";
import type { LedgerLoss } from "../ledger/LedgerFileWatch.js";
import type { ClientFilter, ClientSeen, LedgerCursor } from "../ledger/LedgerQueries.js";
import type { Logger } from "../observability/logger.js";
import type { ServoHealth } from "../transport/ServoHealth.js";
import type { ArmRecovery, ArmStatus, LinkState, ServoRecovery } from "../transport/Transport.js";
import type { EnvelopeRefusalRecord } from "../executor/ExecutorParts.js";

/**
 * The door of a bridge: what every surface — HTTP, MCP, Gemini, the CLI,
 * the demo — may ask of one, and the words it is asked in. Surfaces import
 * this module (and the vocabulary beside it, portVocabulary.ts), never the
 * executor, the ledger or a transport: what lies behind the door can change
 * shape, or move to another process, without a surface noticing.
 */

/** What a surface knows of one tool: whether it moves the arm, and its argument schema. */
export interface PortTool {
  readonly name: string;
  /** A motion (locks, ledger, settlement) rather than a read or a halt. */
  readonly blocking: boolean;
  readonly args: {
    safeParse(value: unknown): { readonly success: true; readonly data: unknown } | { readonly success: false };
  };
}

/** The tools a bridge offers, and what may be looked up about each. */
export interface ToolCatalogue<Tool extends PortTool = PortTool> {
  declarations(): FunctionDeclaration[];
  get(name: string): Tool | undefined;
  names(): string[];
}

/**
 * The one bridge port: run calls, know the tools, follow the progress
 * events. Implemented by a Bridge in this process and by a running serve
 * reached over its HTTP API (RemoteBridge) — the same agent loop or MCP
 * server drives either, and everything that matters (locks, ledger,
 * quarantine, approvals) lives behind it, not in the surface.
 */
export interface BridgePort<Tool extends PortTool = PortTool> {
  /** Each call gets exactly one answer, in order; never rejects for a call's own outcome. */
  execute(calls: readonly FunctionCall[], options?: ExecuteOptions): Promise<CallResponse[]>;
  readonly tools: ToolCatalogue<Tool>;
  onEvent(listener: (e: ExecutorEvent) => void): () => void;
}

/** The approvals desk as an operator sees it: what waits, and their answer to one. */
export interface OperatorApprovals {
  pending(): ApprovalView[];
  readonly pendingCount: number;
  approve(id: string, by: { readonly operator: string; readonly note?: string | undefined }): DecidedApprovalView;
  decline(id: string, by: { readonly operator: string; readonly note?: string | undefined }): DecidedApprovalView;
}

/** Hold-to-run as an open console drives it (config `operator_presence`). */
export interface OperatorPresenceFace {
  beat(sessionId: string, operator: string | undefined): PresenceSnapshot;
  leave(sessionId: string): PresenceSnapshot;
  snapshot(): PresenceSnapshot;
}

/** Brings servos back after a hardware shutdown (only some transports can). */
export type RecoverServos = (options: {
  readonly axes?: readonly string[];
  readonly signal: AbortSignal;
}) => Promise<readonly ServoRecovery[]>;

/**
 * What a person may do that a model may not: answer approvals, hold the
 * arm's presence, halt and release, confirm an unknown action, recover
 * servos. Only a bridge in this process has it; other processes reach it
 * through serve's operator routes.
 */
export interface OperatorFace {
  readonly approvals: OperatorApprovals;
  /** Undefined on a bridge without `operator_presence`. */
  readonly presence: OperatorPresenceFace | undefined;
  halt(request: HaltRequest): Promise<HaltOutcome>;
  releaseHalt(release: { readonly operator: string; readonly note?: string | undefined }): HaltRow[];
  confirm(actionId: string, confirmation: Confirmation): ActionRow;
  /** The servo recovery, or ARMB_ERR_RECOVERY_UNSUPPORTED thrown when this arm's transport has none. */
  servoRecovery(): RecoverServos;
  /** The arm's recovery after its safety system took the controllers down, or ARMB_ERR_ARM_RECOVERY_UNSUPPORTED thrown. */
  armRecovery(): ArmRecovery;
}

/** The motion rate limit's bucket (config `limits.motions_per_minute`). */
export interface MotionRateView {
  readonly perMinute: number;
  tokens(now: number): number;
}

/** The bridge at one moment: the arm, the latch, what is held, in flight and unknown, the ledger. */
export interface BridgeState {
  readonly status: ArmStatus | undefined;
  readonly link: LinkState;
  readonly servoHealth: readonly ServoHealth[] | undefined;
  readonly halt: HaltRow | undefined;
  /** Each quarantined resource, with the actions that hold it. */
  readonly quarantined: ReadonlyMap<string, readonly string[]>;
  readonly approvalsPending: number;
  readonly presence: PresenceSnapshot | undefined;
  /** Ledger rows still `started`, oldest first. */
  readonly inFlight: readonly ActionRow[];
  readonly pendingUnknowns: readonly ActionRow[];
  readonly ledger: { readonly path: string; readonly lost: LedgerLoss | undefined };
  readonly motionRate: MotionRateView | undefined;
  readonly lastEnvelopeRefusal: EnvelopeRefusalRecord | undefined;
}

/** The arm as its link reports it, between snapshots: newest status, and who to tell of changes. */
export interface ArmWatch {
  readonly kind: string;
  latestStatus(): ArmStatus | undefined;
  onStatus(listener: (status: ArmStatus) => void): () => void;
  onLinkState(listener: (state: LinkState) => void): () => void;
}

/** The intent ledger's history as surfaces read it. */
export interface ActionHistory {
  list(filter?: {
    state?: ActionRowState | readonly ActionRowState[] | undefined;
    client?: ClientFilter | undefined;
    limit?: number | undefined;
    before?: number | undefined;
    after?: LedgerCursor | undefined;
  }): ActionRow[];
  get(actionId: string): ActionRow | undefined;
  clients(limit?: number): ClientSeen[];
}

/**
 * The door of a bridge in this process, as serve and the embedded surfaces
 * hold it: the port, plus the operator's face, the state, the history, the
 * arm's watch and what the process running it needs (config, cameras,
 * metrics, start-up warnings, close).
 */
export interface HostedBridgePort extends BridgePort<ToolDefinition> {
  readonly config: ArmConfig;
  readonly logger: Logger;
  readonly cameras: Cameras;
  readonly metrics: { toPrometheus(): string };
  /** The absolute folder of the ledger, or ":memory:". */
  readonly dataDir: string;
  readonly startupWarnings: readonly string[];
  readonly operator: OperatorFace;
  readonly actions: ActionHistory;
  readonly arm: ArmWatch;
  state(): BridgeState;
  /** Joins a motion under way with this call id, or answers the recorded one. */
  attach(callId: string): Promise<CallResponse | undefined>;
  ledgerLoss(): LedgerLoss | undefined;
  /** Ends the waits of calls under way (their motions go on and are settled by observation). */
  endWaits(): void;
  close(): Promise<void>;
}

/** The words of the port: what calls, results, events, actions, halts and the arm's status are. */
export type { CallResponse, CallResult, CallStatus, FunctionCall } from "../executor/calls/CallResult.js";
export type { ExecuteOptions } from "../executor/Executor.js";
export type { ExecutorEvent } from "../executor/ExecutorEvent.js";
export type { PresenceSnapshot } from "../executor/operator/OperatorPresence.js";
export type { FunctionDeclaration } from "../executor/toolContract/ToolRegistry.js";
export type { ToolDefinition } from "../executor/toolContract/ToolDefinition.js";
export type { ActionRow } from "../ledger/ActionRow.js";
export type { ActionRowState, ClientKind } from "../wire/vocabulary.js";
export type { CallClient } from "../ledger/CallClient.js";
export type { HaltRow } from "../ledger/HaltRow.js";
export type { LedgerCursor } from "../ledger/LedgerQueries.js";
export type { ArmStatus } from "../transport/Transport.js";
