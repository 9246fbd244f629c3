/**
 * The values of the bridge port's vocabulary (BridgePort.ts holds its types):
 * the statuses, states, outcomes and client kinds a surface names, and the
 * words it shows them in. A surface takes them from here, so the words an
 * answer carries are the bridge's own and no surface reaches behind the door.
 */
export { CALL_STATUSES } from "../executor/calls/CallResult.js";
export { describeForOperator } from "../executor/operator/describeForOperator.js";
export { isCallEvent } from "../executor/ExecutorEvent.js";
export { hashArgs } from "../executor/calls/hashArgs.js";
export { mcpSessionCallId } from "../executor/calls/callIdNamespace.js";
export { paceWords } from "../executor/motion/reportPace.js";
export { resultFromRow } from "../executor/calls/resultFromRow.js";
export { resultMessages } from "../executor/calls/resultMessages.js";
export { CONFIRM_OUTCOME_ALIASES } from "../ledger/ActionRow.js";
export { CLIENT_NAME_MAX, CLIENT_SESSION_MAX, describeClient, normalizeClient } from "../ledger/CallClient.js";
export { CONFIRM_OUTCOME_RULES, factsOfRow } from "../ledger/confirmOutcomes.js";
export { latchWords, whoHalted } from "../ledger/HaltRow.js";
export { normaliseOperatorName, OPERATOR_NAME_RULE } from "../ledger/operatorName.js";
export { STATE_INPUTS, STATE_WORDS, statesOfWord } from "../ledger/stateWords.js";
export { explainFault } from "../transport/explainFault.js";
export { poseOf } from "../transport/poseOf.js";
