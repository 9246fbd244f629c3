import type { ResultImage } from "../../cameras/CameraImage.js";
import type { ErrorCode } from "../../errors.js";
import type { SettledBy } from "../../ledger/ActionRow.js";
import type { EnvelopeContact } from "../../safety/EnvelopeContact.js";
import type { ArgIssue } from "../../validation/formatIssues.js";

type Pose = Readonly<Record<string, number>>;

interface Common {
  /** The result in words a model can act on. */
  readonly message: string;
  /** Did our wait end by timeout (never by itself evidence of failure). */
  readonly timed_out: boolean;
  readonly settled_by: SettledBy;
  /** True when this is the recorded result of an earlier call with the same id: nothing was executed again. */
  readonly replayed?: boolean;
  /**
   * Set by the Live surface when this call repeated a motion whose result the
   * session never delivered (an interrupted or cancelled call): nothing ran
   * again, and the result is that call's, named here.
   */
  readonly joined_call_id?: string;
  /** Camera pictures: get_camera_image's frame, or a fresh frame attached after a motion settled (cameras[].attach_to_results). Surfaces deliver them as image content. */
  readonly images?: readonly ResultImage[];
  /** What the tool derived from the arguments (move_to_image_point: the table point the image point mapped to, and the calibration's residual). */
  readonly context?: Readonly<Record<string, unknown>>;
}

/**
 * A stop is never refused for its arguments: it acts on what can be
 * understood of them (every axis when the joints are unclear) and then
 * reports what was wrong, under the same code and issues a rejection carries.
 */
interface ActedAround {
  readonly error_code?: ErrorCode;
  readonly issues?: readonly ArgIssue[];
}

/**
 * One call's outcome, a union on `status`. Every consumer switches over
 * `status` exhaustively; adding a status breaks the build until each does.
 */
export type CallResult =
  /** Target reached (motion), or the read/halt succeeded. */
  | (Common & {
      readonly status: "done";
      readonly action_id?: string;
      readonly pose?: Pose;
      readonly output?: Readonly<Record<string, unknown>>;
    } & ActedAround)
  /** Positive evidence that no effect landed: re-running is allowed. */
  | (Common & {
      readonly status: "failed";
      readonly action_id?: string;
      readonly pose?: Pose;
      readonly reason: string;
      /** Set when the bridge itself refused before sending anything (e.g. ARMB_ERR_LEDGER_LOST). */
      readonly error_code?: ErrorCode;
    })
  /**
   * The motion moved, then ended part-way at a known pose, short of its
   * target: halted by a halt the arm confirmed, or an operator saw it stop
   * part-way. Never `done` (the target was not reached) and never `failed`
   * (the arm moved). A next motion plans from `pose` — after a halt only once
   * an operator has released it.
   */
  | (Common & {
      readonly status: "stopped";
      readonly action_id: string;
      /** Where it stopped (axis → position), as the arm reported it; absent only when the bridge had no pose then. */
      readonly pose?: Pose;
      /** Why it stopped, in words: who halted it, or who saw it stop. */
      readonly reason: string;
    })
  /**
   * We could not tell what happened. Never re-run; a person must confirm. The
   * joints are quarantined until then. `action_id` names the motion to
   * confirm; a `stop` whose halt the arm did not confirm has none (the halt's
   * latch is what an operator releases).
   */
  | (Common & {
      readonly status: "unknown";
      readonly action_id?: string;
      readonly pose?: Pose;
      readonly resources: readonly string[];
    } & ActedAround)
  /** Invalid call: nothing was recorded or sent. */
  | (Common & {
      readonly status: "rejected";
      readonly error_code: ErrorCode;
      readonly issues: readonly ArgIssue[];
      readonly action_id?: string;
      /** The safety envelope's refusal: the link, what it would meet, where along the path, the clearance (ARMB_ERR_ENVELOPE_VIOLATION, ARMB_ERR_SELF_COLLISION). */
      readonly envelope?: EnvelopeContact;
      /** limits.motions_per_minute: how long until a motion may start (ARMB_ERR_MOTION_RATE_LIMITED). */
      readonly retry_after_ms?: number;
    })
  /** The run deadline was spent before the call could start: nothing was sent. */
  | (Common & { readonly status: "skipped"; readonly error_code: ErrorCode })
  /** A resource is quarantined by an unresolved unknown action: nothing was sent. */
  | (Common & {
      readonly status: "blocked";
      readonly error_code: ErrorCode;
      readonly blocked_by: readonly string[];
      readonly resources: readonly string[];
    });

export type CallStatus = CallResult["status"];
export type ResultOf<S extends CallStatus> = Extract<CallResult, { status: S }>;

/** Every status, for exhaustive tables and tests. */
export const CALL_STATUSES: Readonly<
  Record<CallStatus, { readonly terminalForModel: boolean; readonly mayRerun: boolean }>
> = {
  done: { terminalForModel: true, mayRerun: false },
  failed: { terminalForModel: true, mayRerun: true },
  // From where it stopped; after a halt, only once an operator released it (until then motions are `blocked`).
  stopped: { terminalForModel: true, mayRerun: true },
  unknown: { terminalForModel: false, mayRerun: false },
  rejected: { terminalForModel: true, mayRerun: true },
  skipped: { terminalForModel: true, mayRerun: true },
  blocked: { terminalForModel: false, mayRerun: false },
};

/** A function call as models send it (Gemini's shape). */
export interface FunctionCall {
  readonly id?: string | undefined;
  readonly name: string;
  readonly args?: unknown;
}

/** One response per call, same id and name, in call order. */
export interface CallResponse {
  readonly id: string;
  readonly name: string;
  readonly result: CallResult;
}
