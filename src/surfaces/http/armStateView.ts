import type { BridgeState, HostedBridgePort } from "../../bridge/BridgePort.js";
import { explainFault } from "../../bridge/portVocabulary.js";
import { actionViewWithOptions } from "./actionView.js";
import { envelopeStateView } from "./envelopeView.js";
import { haltView } from "./haltView.js";
import { presenceViewOf } from "./presenceView.js";
import type { ArmStateView } from "../../wire/ArmStateView.js";

export type { ArmStateView } from "../../wire/ArmStateView.js";

export function armStateView(bridge: HostedBridgePort, now = Date.now()): ArmStateView {
  const state = bridge.state();
  const status = state.status;
  const pose: Record<string, number> = {};
  const moving: string[] = [];
  for (const [name, axis] of Object.entries(status?.axes ?? {})) {
    pose[name] = axis.position;
    if (axis.moving) moving.push(name);
  }
  const ageMs = status ? Math.max(0, now - status.stampMs) : null;
  const halt = state.halt;
  const servoHealth = state.servoHealth;
  return {
    link: state.link,
    pose,
    moving,
    stale: ageMs === null || ageMs > bridge.config.staleAfterMs,
    age_ms: ageMs,
    faults: status?.faults ?? [],
    fault_help: (status?.faults ?? []).map(explainFault),
    quarantined: Object.fromEntries(state.quarantined),
    approvals_pending: state.approvalsPending,
    halted: halt !== undefined,
    halt: halt ? haltView(halt) : null,
    ...(state.presence ? { presence: presenceViewOf(state.presence, now) } : {}),
    in_flight: state.inFlight.map((row) => ({
      action_id: row.actionId,
      call_id: row.callId,
      tool: row.tool,
      resources: row.resources,
      targets: row.command?.targets ?? {},
      client: row.client ?? null,
      started_at: row.createdAt,
    })),
    pending_unknowns: state.pendingUnknowns.map((row) => actionViewWithOptions(row, status)),
    ledger: { path: state.ledger.path, lost: ledgerLost(state) },
    envelope: envelopeStateView(bridge, state, pose, now),
    ...(servoHealth === undefined ? {} : { servo_health: servoHealth }),
  };
}

function ledgerLost(state: BridgeState): ArmStateView["ledger"]["lost"] {
  const loss = state.ledger.lost;
  return loss ? { code: loss.error.code, message: loss.error.message, detected_at: loss.detectedAt } : null;
}
