import type { CameraImage } from "../cameras/CameraImage.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import type { Logger } from "../observability/logger.js";
import type { EnvelopeContact } from "../safety/EnvelopeContact.js";
import type { MotionRateLimit } from "../safety/MotionRateLimit.js";
import type { Transport } from "../transport/Transport.js";
import type { ApprovalDesk } from "./operator/ApprovalDesk.js";
import type { ArmState } from "./arm/ArmState.js";
import type { CallAdmission } from "./calls/CallAdmission.js";
import type { ExecutorEvents } from "./ExecutorEvents.js";
import type { HaltOutcome, HaltRequest } from "./arm/HaltLatch.js";
import type { MotionRunner } from "./motion/MotionRunner.js";
import type { RecordedObservationDeps } from "./reconciliation/observeRecordedAction.js";
import type { OperatorPresence } from "./operator/OperatorPresence.js";
import type { ReadContext } from "./toolContract/ToolDefinition.js";
import type { ToolMetrics } from "./calls/ToolMetrics.js";
import type { ToolRegistry } from "./toolContract/ToolRegistry.js";

/** What an executor is made of: built by the composition root (composeExecutor), shared with the parts that need them. */
export interface ExecutorParts {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly metrics: ToolMetrics;
  readonly log: Logger;
  readonly now: () => number;
  /** The arm's state: locks, quarantine, motions in flight, the halt latch. */
  readonly arm: ArmState;
  readonly approvals: ApprovalDesk;
  readonly presence: OperatorPresence | undefined;
  readonly motionRate: MotionRateLimit | undefined;
  readonly admission: CallAdmission;
  readonly motions: MotionRunner;
  readonly events: ExecutorEvents;
  /** Aborted by close(): ends every wait and observation, never a motion. */
  readonly shutdown: AbortController;
  /** The newest envelope refusal, kept by the motion path. */
  readonly envelopeRefusal: { readonly last: EnvelopeRefusalRecord | undefined };
  readonly ctx: ReadContext;
  /** The one path that observes recorded actions: reconciliation at start, re-observation after a link returns. */
  readonly recorded: RecordedObservationDeps;
  readonly imagesAfterMotion: ((signal: AbortSignal) => Promise<readonly CameraImage[]>) | undefined;
  /** A halt asked by a person or by presence: logged under who asked, then sent, bounded by the stop tool's timeout. */
  readonly halt: (request: HaltRequest) => Promise<HaltOutcome>;
  /** The executor's subscriptions to the transport, ended by close(). */
  readonly watches: readonly (() => void)[];
}

/** An envelope refusal with the call that met it and when (epoch ms). */
export type EnvelopeRefusalRecord = EnvelopeContact & {
  readonly call_id: string;
  readonly tool: string;
  readonly at_ms: number;
};
