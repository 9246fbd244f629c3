import type { ErrorCode } from "../errors.js";
import type { ArgIssue } from "../validation/formatIssues.js";

/** Why a motion may not be sent: a coded reason and the issues a model reads. */
export interface MotionRefusal {
  readonly ok: false;
  readonly code: ErrorCode;
  readonly issues: readonly ArgIssue[];
}

/** What a motion tool asks the arm to do: absolute targets per axis. */
export interface MotionPlan {
  readonly targets: Readonly<Record<string, number>>;
  readonly speed: number;
  /** Set when the tool itself finds the call cannot be done (an unreachable Cartesian target): it is rejected, nothing is recorded or sent. */
  readonly refusal?: MotionRefusal;
}
