import type { Executor } from "../executor/Executor.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import type { Transport } from "../transport/Transport.js";
import type { BridgeState } from "./BridgePort.js";

/** One snapshot of a bridge in this process, read from its transport, executor and ledger at this moment. */
export function bridgeStateOf(transport: Transport, executor: Executor, ledger: IntentLedger): BridgeState {
  return {
    status: transport.latestStatus(),
    link: transport.linkState(),
    servoHealth: transport.servos?.health(),
    halt: executor.halts.engaged,
    quarantined: executor.quarantine.byResource(),
    approvalsPending: executor.approvals.pendingCount,
    presence: executor.presence?.snapshot(),
    inFlight: ledger.inState("started"),
    pendingUnknowns: ledger.inState("unknown"),
    ledger: { path: ledger.path, lost: ledger.lost },
    motionRate: executor.motionRate,
    lastEnvelopeRefusal: executor.lastEnvelopeRefusal,
  };
}
