import type { ActionRow, ExecutorEvent } from "../bridge/BridgePort.js";
import { whoHalted } from "../bridge/portVocabulary.js";
import { timeOf, type ChannelKey } from "./recordingChannels.js";

/** One message for one of the fixed channels, at `ms` (epoch). */
export interface EventRecord {
  readonly channel: ChannelKey;
  readonly ms: number;
  readonly message: object;
}

/** A ledger row as `/armbridge/actions` holds it: the intent (what was sent) or the settlement (state and evidence). */
export function actionRecord(row: ActionRow, kind: "intent" | "settlement" | "confirmation", ms: number): EventRecord {
  const common = {
    timestamp: timeOf(ms),
    kind,
    action_id: row.actionId,
    call_id: row.callId,
    tool: row.tool,
    state: row.state,
    ...(row.client ? { client: row.client } : {}),
  };
  if (kind === "intent")
    return {
      channel: "actions",
      ms,
      message: { ...common, args: row.args, command: row.command ?? {}, created_at: row.createdAt },
    };
  return {
    channel: "actions",
    ms,
    message: {
      ...common,
      settled_by: row.settledBy ?? "",
      evidence: row.evidence ?? {},
      message: row.message ?? "",
      ...(row.operator === undefined ? {} : { operator: row.operator, operator_outcome: row.operatorOutcome ?? "" }),
    },
  };
}

/**
 * What one executor event puts on the time line: a call's progress on
 * `/armbridge/calls`, an operator's part on `/armbridge/operator`, the same
 * in words on `/log`. Action intents and settlements need the ledger row and
 * are written by the recorder (actionRecord).
 */
export function eventRecords(e: ExecutorEvent, ms: number): EventRecord[] {
  const timestamp = timeOf(ms);
  const log = (level: 2 | 3 | 4, text: string): EventRecord => ({
    channel: "log",
    ms,
    message: { timestamp, level, message: text, name: "armbridge", file: "", line: 0 },
  });
  const operator = (kind: string, detail: object, who?: string, callId?: string): EventRecord => ({
    channel: "operator",
    ms,
    message: {
      timestamp,
      kind,
      ...(who === undefined ? {} : { operator: who }),
      ...(callId ? { call_id: callId } : {}),
      detail,
    },
  });
  switch (e.type) {
    case "queued":
    case "started":
    case "timed_out":
    case "paced":
    case "settled": {
      const { type, callId, tool, client, ...rest } = e;
      const call = {
        channel: "calls" as const,
        ms,
        message: { timestamp, kind: type, call_id: callId, tool, ...(client ? { client } : {}), ...snake(rest) },
      };
      return e.type === "timed_out" ? [call, log(3, `${tool} ${callId}: timed out; settled by observation`)] : [call];
    }
    case "approval_requested":
      return [
        operator("approval_requested", e.approval, undefined, e.callId),
        log(2, `${e.tool} ${e.callId} waits for an operator's approval`),
      ];
    case "approval_resolved":
      return [operator("approval_resolved", e.approval, e.approval.operator ?? undefined, e.callId)];
    case "halted":
      return [operator("halt", e.halt, e.halt.operator, e.halt.callId), log(3, `HALT by ${whoHalted(e.halt)}`)];
    case "halt_released":
      return [operator("release", { halts: e.halts }, e.halts[0]?.releasedBy ?? undefined), log(2, "halt released")];
    case "presence_changed":
      return [];
    case "link_returned":
      return [log(3, `the arm's link returned (${e.loss.reason}); re-observing ${e.reobserving.length} action(s)`)];
    case "action_resolved":
      return [];
  }
}

/** An event's own fields in the file's words (snake_case), as the rest of the recording. */
function snake(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );
}
