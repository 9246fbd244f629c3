import { InFlightMotions } from "../../safety/InFlightMotions.js";
import { clientOfHalt, type HaltLatch, type HaltOutcome, type HaltRequest } from "./HaltLatch.js";
import { HaltLog } from "./HaltLog.js";
import { JointLockTable } from "./JointLockTable.js";
import type { Quarantine } from "./Quarantine.js";

/**
 * Everything the executor keeps about one arm: whose turn it is on each
 * joint, what is quarantined, what may be moving, and whether it is halted.
 * One per arm; a motion on one arm never waits for or is blocked by another's.
 */
export class ArmState {
  /** Calls sharing a joint (or a controller) run one after another, in arrival order. */
  readonly locks = new JointLockTable();
  /** Motions that may be moving the arm now: the envelope check of every new motion accounts for them. */
  readonly inFlight = new InFlightMotions();
  /** Every halt sent, with the client that asked for it: a motion a halt cut short names them. */
  readonly haltLog = new HaltLog();
  /** Resources held by actions whose outcome is unknown. */
  readonly quarantine: Quarantine;
  /** The halt latch: on from any halt until an operator releases it; every motion is refused meanwhile. */
  readonly halts: HaltLatch;

  constructor(parts: { readonly quarantine: Quarantine; readonly halts: HaltLatch }) {
    this.quarantine = parts.quarantine;
    this.halts = parts.halts;
  }

  /** A halt, logged (under who asked) before it leaves: a motion it cuts short names them. */
  halt(request: HaltRequest, at: number, signal: AbortSignal): Promise<HaltOutcome> {
    this.haltLog.record({ at, axes: request.axes, callId: request.callId, client: clientOfHalt(request) });
    return this.halts.halt(request, signal);
  }
}
