import type { Bridge } from "../../bridge/Bridge.js";
import { explainFault, type FaultHelp } from "../../transport/explainFault.js";
import type { LinkState } from "../../transport/Transport.js";
import { actionViewWithOptions, type ActionView } from "./actionView.js";
import { envelopeStateView, type EnvelopeStateView } from "./envelopeView.js";

/** GET /v1/state and the console's `state` events. */
export interface ArmStateView {
  /**
   * The arm connection (connected / reconnecting since … attempt N / down),
   * apart from the browser's own event stream. While it is not `connected`,
   * `pose` is the last one received, `link.last_status_at` old: not "now".
   */
  readonly link: LinkState;
  /** Axis → position (rad; gripper 0..1), from the newest status. Empty before the first. */
  readonly pose: Readonly<Record<string, number>>;
  readonly moving: readonly string[];
  /** True when there is no status yet or the newest is older than the config's stale_after_ms. */
  readonly stale: boolean;
  /** Age of the newest status, or null before the first. */
  readonly age_ms: number | null;
  readonly faults: readonly string[];
  /** Each fault with what clears it (confirming an action never does). */
  readonly fault_help: readonly FaultHelp[];
  /** Resource → the unknown actions that quarantine it. */
  readonly quarantined: Readonly<Record<string, readonly string[]>>;
  /** Calls waiting for an operator's approval (GET /v1/approvals lists them). */
  readonly approvals_pending: number;
  /** Actions waiting for an operator, oldest first, each with its `confirm_options`. */
  readonly pending_unknowns: readonly ActionView[];
  /**
   * The intent ledger: its file, and `lost` once that file was deleted or
   * replaced under the running bridge (then every motion call fails with
   * ARMB_ERR_LEDGER_LOST until a restart): a console shows it as a banner.
   */
  readonly ledger: {
    readonly path: string;
    readonly lost: { readonly code: string; readonly message: string; readonly detected_at: number } | null;
  };
  /** The safety envelope now: link volumes where the arm is, the newest refusal, the motion rate (envelopeView.ts). */
  readonly envelope: EnvelopeStateView;
}

export function armStateView(bridge: Bridge, now = Date.now()): ArmStateView {
  const status = bridge.transport.latestStatus();
  const pose: Record<string, number> = {};
  const moving: string[] = [];
  for (const [name, axis] of Object.entries(status?.axes ?? {})) {
    pose[name] = axis.position;
    if (axis.moving) moving.push(name);
  }
  const ageMs = status ? Math.max(0, now - status.stampMs) : null;
  return {
    link: bridge.transport.linkState(),
    pose,
    moving,
    stale: ageMs === null || ageMs > bridge.config.staleAfterMs,
    age_ms: ageMs,
    faults: status?.faults ?? [],
    fault_help: (status?.faults ?? []).map(explainFault),
    quarantined: Object.fromEntries(bridge.executor.quarantine.byResource()),
    approvals_pending: bridge.executor.approvals.pendingCount,
    pending_unknowns: bridge.ledger.inState("unknown").map((row) => actionViewWithOptions(row, status)),
    ledger: { path: bridge.ledger.path, lost: ledgerLost(bridge) },
    envelope: envelopeStateView(bridge, pose, now),
  };
}

function ledgerLost(bridge: Bridge): ArmStateView["ledger"]["lost"] {
  const loss = bridge.ledger.lost;
  return loss ? { code: loss.error.code, message: loss.error.message, detected_at: loss.detectedAt } : null;
}
