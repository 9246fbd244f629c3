import { describe, expect, it } from "vitest";
import { CALL_STATUSES, type CallResult } from "../../../src/executor/calls/CallResult.js";
import { MCP_IS_ERROR, toCallToolResult } from "../../../src/surfaces/mcp/toCallToolResult.js";

const base = { message: "m", timed_out: false, settled_by: "none" } as const;
const samples: Record<CallResult["status"], CallResult> = {
  done: { ...base, status: "done", action_id: "act_1", settled_by: "observation", timed_out: true },
  failed: { ...base, status: "failed", action_id: "act_2", reason: "nothing moved" },
  stopped: {
    ...base,
    status: "stopped",
    action_id: "act_4",
    pose: { elbow: 0.4 },
    reason: "halted by ana",
    settled_by: "operator",
  },
  unknown: { ...base, status: "unknown", action_id: "act_3", resources: ["elbow"] },
  rejected: { ...base, status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID", issues: [] },
  skipped: { ...base, status: "skipped", error_code: "ARMB_ERR_DEADLINE_SPENT" },
  blocked: {
    ...base,
    status: "blocked",
    error_code: "ARMB_ERR_QUARANTINED",
    blocked_by: ["act_3"],
    resources: ["elbow"],
  },
};

describe("toCallToolResult", () => {
  it.each(Object.values(samples))(
    "$status: structuredContent is the CallResult, text is message + FunctionResponse JSON",
    (result) => {
      const mcp = toCallToolResult({ id: "c1", name: "move_joints", result });
      expect(mcp.structuredContent).toEqual(result);
      const [first] = mcp.content as { type: string; text: string }[];
      const [message, json] = first!.text.split("\n");
      expect(message).toBe(result.message);
      expect(JSON.parse(json!)).toEqual(result.status === "rejected" ? { error: result } : { output: result });
    },
  );

  it("marks as an error only what may be re-run, so no host retries an unknown or a blocked call", () => {
    for (const status of Object.keys(CALL_STATUSES) as CallResult["status"][]) {
      expect(toCallToolResult({ id: "c", name: "t", result: samples[status] }).isError).toBe(MCP_IS_ERROR[status]);
      // A stopped motion may be re-run from where it stopped, yet it is no error: the arm moved.
      expect(MCP_IS_ERROR[status]).toBe(CALL_STATUSES[status].mayRerun && status !== "stopped");
    }
    expect(MCP_IS_ERROR.unknown).toBe(false);
    expect(MCP_IS_ERROR.stopped).toBe(false);
    expect(MCP_IS_ERROR.blocked).toBe(false);
  });
});
