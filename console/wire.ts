/*
 * The shapes the console reads from the HTTP API (README "HTTP API"). Written
 * on this side rather than imported from the server so the browser bundle
 * never pulls server code; every value is still treated as untrusted text
 * when it reaches the page (dom.ts).
 */

export type ActionState = "started" | "done" | "failed" | "unknown" | "confirmed_done" | "confirmed_partial" | "confirmed_not_done";
export const ACTION_STATES: readonly ActionState[] = ["started", "done", "failed", "unknown", "confirmed_done", "confirmed_partial", "confirmed_not_done"];

export type LinkState = "connected" | "reconnecting" | "down";

/** The arm connection as the bridge sees it (GET /v1/state `link`). */
export interface LinkView {
  readonly state: LinkState;
  /** Epoch ms the link entered this state. */
  readonly since: number;
  readonly attempt?: number;
  readonly last_status_at?: number | null;
  readonly detail?: string;
  /** Epoch ms of the next reconnection attempt. */
  readonly next_attempt_at?: number;
  /** Why the newest attempt was refused (ARMB_ERR_DEVICE_REPLACED: another device answered, not driven). */
  readonly error_code?: string;
  readonly incarnation?: string;
  /** The newest loss of the link and how it came back. */
  readonly last_loss?: { readonly lost_at: number; readonly returned_at?: number; readonly incarnation_changed?: boolean; readonly in_flight: readonly string[] };
}

export type Pose = Readonly<Record<string, number>>;

export interface ConfirmOption {
  /** What the console posts back: reached | partial | not_moved. */
  readonly outcome: string;
  readonly label: string;
  /** The joints/resources this choice releases from quarantine. */
  readonly releases: readonly string[] | string;
  /** What get_action_status will then tell the model. */
  readonly model_is_told: string;
  /** What follows, in the operator's words: which joints unlock, what the model does next, where the arm may be. */
  readonly what_follows?: string;
  /** The ledger state the action moves to. */
  readonly state?: ActionState;
}

export interface ActionView {
  readonly action_id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly resources: readonly string[];
  readonly command: { readonly targets?: Pose; readonly speed?: number; readonly from?: Pose | null } | null;
  readonly state: ActionState;
  readonly timed_out: boolean;
  readonly settled_by: string;
  /** The model's words. */
  readonly message: string | null;
  /** What happened, in words for the operator (absent from older bridges). */
  readonly description?: string;
  readonly evidence: { readonly pose: Pose | null; readonly pose_stamp_ms: number | null; readonly notes: readonly string[] } | null;
  readonly operator: string | null;
  readonly operator_note: string | null;
  /** The operator's word (reached | partial | not_moved, or done | not_done on older rows), when the bridge records it. */
  readonly operator_outcome?: string | null;
  readonly observed_pose?: Pose | null;
  readonly created_at: number;
  readonly settled_at: number | null;
  readonly confirmed_at: number | null;
  readonly confirm_options?: readonly ConfirmOption[];
}

export interface ApprovalView {
  readonly id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly resources: readonly string[];
  readonly targets: Pose;
  /** Which rule asked for approval, in words. */
  readonly why?: string;
  readonly requested_at: number;
  readonly expires_at: number;
}

export interface StateView {
  readonly pose: Pose;
  readonly moving: readonly string[];
  readonly stale: boolean;
  readonly age_ms: number | null;
  readonly faults: readonly string[];
  /** Each fault with what clears it, in the bridge's words (absent from older bridges). */
  readonly fault_help?: readonly { readonly fault: string; readonly clears: string }[];
  readonly quarantined: Readonly<Record<string, readonly string[]>>;
  readonly pending_unknowns: readonly ActionView[];
  readonly ledger?: { readonly path: string; readonly lost: { readonly code: string; readonly message: string; readonly detected_at: number } | null };
  /** Absent from bridges older than the link field: the console then judges the link by the status age alone. */
  readonly link?: LinkView;
  /** Count (or list) of approval requests waiting. */
  readonly approvals_pending?: number | readonly unknown[];
}

export interface ArmAxis {
  readonly name: string;
  readonly kind: "joint" | "gripper";
  readonly min: number;
  readonly max: number;
  readonly home: number;
  readonly unit: "rad" | "fraction";
}

export interface ArmDescription {
  readonly name: string;
  readonly axes: readonly ArmAxis[];
  readonly named_poses: Readonly<Record<string, Pose>>;
  readonly stale_after_ms: number;
}

/** One SSE `executor` event; only `type` and a few ids matter to the console. */
export interface ExecutorEventView {
  readonly type: string;
  readonly actionId?: string;
  readonly action?: ActionView;
}

export interface ApiErrorBody {
  readonly code: string;
  readonly message: string;
}

/** GET /v1/security: what the console warns about in a banner. */
export interface SecurityReport {
  readonly bind: string;
  readonly loopback_only: boolean;
  readonly warnings: readonly { readonly kind: string; readonly message: string }[];
}
