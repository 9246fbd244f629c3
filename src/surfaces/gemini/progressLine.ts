import type { CallResult, ExecutorEvent } from "../../bridge/BridgePort.js";
import { paceWords } from "../../bridge/portVocabulary.js";

/**
 * One short line per executor event of a call, for people watching a run
 * (stderr of `armbridge agent`, the demo narrative). `action_resolved` has
 * no call and returns undefined.
 */
export function progressLine(event: ExecutorEvent): string | undefined {
  switch (event.type) {
    case "queued":
      return `${event.callId} ${event.tool}: queued for ${event.resources.join(", ")}`;
    case "started":
      return `${event.callId} ${event.tool}: started ${event.actionId} on ${event.resources.join(", ")} (wait budget ${event.budgetMs} ms)`;
    case "timed_out":
      return `${event.callId} ${event.tool}: wait for ${event.actionId} timed out; the motion is neither stopped nor re-sent; observing the arm`;
    case "paced":
      return `${event.callId} ${event.tool}: ${event.actionId} ${paceWords(event.pace)}${event.pace.paused ? "; waiting for it to resume" : "; the wait is stretched to match"}`;
    case "settled":
      return `${event.callId} ${event.tool}: ${settledText(event.result)} (${event.durationMs} ms)`;
    case "action_resolved":
    case "presence_changed":
      return undefined;
    case "halted":
      return `HALT ${event.halt.haltId} (${event.halt.source}${event.halt.operator ? ` ${event.halt.operator}` : ""}): ${event.halt.confirmed === undefined ? "sent; every motion is refused until an operator releases it" : event.halt.confirmed ? "confirmed by the arm" : `NOT confirmed by the arm${event.halt.detail ? ` (${event.halt.detail})` : ""}`}`;
    case "halt_released":
      return `halt released by ${event.halts[0]?.releasedBy ?? "an operator"}: motion is accepted again`;
    case "link_returned":
      return `arm link back after ${linkDownText(event.loss)}${event.loss.incarnation_changed ? " as a new incarnation (it lost power or restarted)" : ""}; in flight: ${event.loss.in_flight.join(", ") || "nothing"}; not re-sent, settled by observation`;
    case "approval_requested":
      return `${event.callId} ${event.tool}: waiting for an operator's approval (${event.approval.id}, ${event.approval.why}); nothing sent`;
    case "approval_resolved":
      return `${event.callId} ${event.tool}: approval ${event.approval.id} ${event.approval.decision}${event.approval.operator ? ` by ${event.approval.operator}` : ""}`;
  }
}

function linkDownText(loss: {
  readonly lost_at: number;
  readonly returned_at?: number;
  readonly attempts: number;
}): string {
  const ms = loss.returned_at === undefined ? undefined : loss.returned_at - loss.lost_at;
  return ms === undefined || ms === 0
    ? "a restart behind a link that stayed up"
    : `${ms} ms (${loss.attempts} attempt${loss.attempts === 1 ? "" : "s"})`;
}

function settledText(r: CallResult): string {
  const id = "action_id" in r && r.action_id ? ` ${r.action_id}` : "";
  const after = r.timed_out ? " after a timeout" : "";
  switch (r.status) {
    case "done":
      return `done${id}, settled by ${r.settled_by}${after}`;
    case "failed":
      return `failed${id}, settled by ${r.settled_by}${after}: ${r.reason}`;
    case "stopped":
      return `stopped part-way${id}${after}: ${r.reason}`;
    case "unknown":
      return `UNKNOWN${id}${after}: ${r.resources.join(", ")} quarantined until an operator confirms (do not re-run)`;
    case "rejected":
      return `rejected (${r.error_code}): ${r.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
    case "skipped":
      return `skipped (${r.error_code}): no time left in the run; nothing was sent`;
    case "blocked":
      return `blocked (${r.error_code}) by ${r.blocked_by.join(", ")} on ${r.resources.join(", ")}; nothing was sent`;
  }
}
