import type { Bridge } from "../../bridge/Bridge.js";
import { explainFault } from "../../transport/explainFault.js";
import { actionViewWithOptions } from "./actionView.js";
import { envelopeStateView } from "./envelopeView.js";
import { haltView } from "./haltView.js";
import { presenceView } from "./presenceView.js";
import type { ArmStateView } from "../../wire/ArmStateView.js";

export type { ArmStateView } from "../../wire/ArmStateView.js";

export function armStateView(bridge: Bridge, now = Date.now()): ArmStateView {
  const status = bridge.transport.latestStatus();
  const pose: Record<string, number> = {};
  const moving: string[] = [];
  for (const [name, axis] of Object.entries(status?.axes ?? {})) {
    pose[name] = axis.position;
    if (axis.moving) moving.push(name);
  }
  const ageMs = status ? Math.max(0, now - status.stampMs) : null;
  const halt = bridge.executor.halts.engaged;
  const servoHealth = bridge.transport.servoHealth?.();
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
    halted: halt !== undefined,
    halt: halt ? haltView(halt) : null,
    ...(bridge.executor.presence ? { presence: presenceView(bridge, now) } : {}),
    in_flight: bridge.ledger.inState("started").map((row) => ({
      action_id: row.actionId,
      call_id: row.callId,
      tool: row.tool,
      resources: row.resources,
      targets: row.command?.targets ?? {},
      client: row.client ?? null,
      started_at: row.createdAt,
    })),
    pending_unknowns: bridge.ledger.inState("unknown").map((row) => actionViewWithOptions(row, status)),
    ledger: { path: bridge.ledger.path, lost: ledgerLost(bridge) },
    envelope: envelopeStateView(bridge, pose, now),
    ...(servoHealth === undefined ? {} : { servo_health: servoHealth }),
  };
}

function ledgerLost(bridge: Bridge): ArmStateView["ledger"]["lost"] {
  const loss = bridge.ledger.lost;
  return loss ? { code: loss.error.code, message: loss.error.message, detected_at: loss.detectedAt } : null;
}
