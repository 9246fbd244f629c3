/**
 * armbridge's public surface for library users. Everything else is internal.
 */
export { Bridge, type BridgeOptions } from "./bridge/Bridge.js";
export type {
  BridgePort,
  BridgeState,
  HostedBridgePort,
  OperatorFace,
  PortTool,
  ToolCatalogue,
} from "./bridge/BridgePort.js";
export { defaultDataDir } from "./bridge/defaultDataDir.js";
export type { OtherArmPolicy } from "./bridge/bindLedgerToArm.js";
export type { TransportChoice } from "./bridge/createTransport.js";
export { loadConfig, parseConfig, DEFAULT_CONFIG_PATH } from "./config/loadConfig.js";
export type { ApprovalRule, ArmConfig, ArmConfigFile } from "./config/ArmConfig.js";
export { actuatorsOf, resourcesFor, type Actuator } from "./config/actuators.js";
export { ArmbridgeError, ERROR_CODES, isArmbridgeError, type ErrorCode } from "./errors.js";
export { Executor, newActionId, type ExecuteOptions, type ExecutorEvent } from "./executor/Executor.js";
export { composeExecutor, type ExecutorOptions } from "./bridge/composeExecutor.js";
export {
  CALL_STATUSES,
  type CallResponse,
  type CallResult,
  type CallStatus,
  type FunctionCall,
} from "./executor/calls/CallResult.js";
export { JointLockTable, LockWaitAborted, type LockLease } from "./executor/arm/JointLockTable.js";
export { observeUntilSettled } from "./executor/motion/observeUntilSettled.js";
export {
  ApprovalDesk,
  type ApprovalDecision,
  type ApprovalView,
  type DecidedApprovalView,
} from "./executor/operator/ApprovalDesk.js";
export { CONFIRM_OUTCOME_RULES, type ConfirmOutcomeRule } from "./ledger/confirmOutcomes.js";
export { CONFIRM_OUTCOMES, type ConfirmOutcome } from "./wire/vocabulary.js";
export type { ConfirmOutcomeInput } from "./ledger/ActionRow.js";
// ActionRowState is the ledger's state of an action; ActionState, its first exported name, is kept for library users.
export type { ActionRowState, ActionRowState as ActionState } from "./wire/vocabulary.js";
export type { ActionRow, Evidence, SettledBy } from "./ledger/ActionRow.js";
export { IntentLedger } from "./ledger/IntentLedger.js";
export type { LedgerCursor } from "./ledger/LedgerQueries.js";
export type { LedgerLoss } from "./ledger/LedgerFileWatch.js";
export { ToolRegistry, type FunctionDeclaration } from "./executor/toolContract/ToolRegistry.js";
export { createDefaultTools } from "./tools/defaultTools.js";
export { observeTargets } from "./executor/toolContract/observeTargets.js";
export {
  defineMotionTool,
  defineReadTool,
  type MotionTool,
  type ReadTool,
  type HaltTool,
  type ToolDefinition,
  type ObserveFn,
} from "./executor/toolContract/ToolDefinition.js";
export { ToolMetrics } from "./executor/calls/ToolMetrics.js";
export { createLogger } from "./observability/logger.js";
export type {
  Transport,
  MotionCommand,
  MotionEnd,
  ActionRecord,
  ArmActionState,
  ArmStatus,
  HaltResult,
  LinkState,
  LinkStateName,
  LinkLoss,
} from "./transport/Transport.js";
// For third-party transports: keeps a LinkState and tells listeners of changes only.
export { LinkStateTracker } from "./transport/link/LinkStateTracker.js";
export { motionProblem, type AxisRange, type AxisRangeLookup } from "./transport/motionProblem.js";
export { createSerialTransport, SerialTransport } from "./transport/serial/index.js";
export { toFunctionResponse, type FunctionResponse } from "./surfaces/toFunctionResponse.js";
