import { ArmbridgeError } from "../errors.js";
import type { Executor } from "../executor/Executor.js";
import type { Transport } from "../transport/Transport.js";
import type { OperatorFace } from "./BridgePort.js";

/** The operator's face of a bridge in this process: the executor's desk, presence and latch, the transport's servo recovery. */
export function operatorFaceOf(executor: Executor, transport: Transport): OperatorFace {
  return {
    approvals: executor.approvals,
    presence: executor.presence,
    halt: (request) => executor.halt(request),
    releaseHalt: (release) => executor.releaseHalt(release),
    confirm: (actionId, confirmation) => executor.confirm(actionId, confirmation),
    servoRecovery: () => {
      const servos = transport.servos;
      if (!servos) throw new ArmbridgeError("ARMB_ERR_RECOVERY_UNSUPPORTED", { transport: transport.kind });
      return (options) => servos.recover(options);
    },
    armRecovery: () => {
      if (!transport.armRecovery)
        throw new ArmbridgeError("ARMB_ERR_ARM_RECOVERY_UNSUPPORTED", { transport: transport.kind });
      return transport.armRecovery;
    },
  };
}
