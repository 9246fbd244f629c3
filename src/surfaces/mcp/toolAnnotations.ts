import type { ToolAnnotations } from "@modelcontextprotocol/server";
import type { ToolDefinition } from "../../bridge/BridgePort.js";

/**
 * MCP hints per kind of tool. Hosts use them to decide what to ask the user
 * before running; they never replace the executor's own policy.
 *
 * - motion: changes the physical world; not idempotent (a second call is a new
 *   action with its own id, even to the same target); not "destructive" in MCP's
 *   sense (it does not delete or overwrite data), but open-world.
 * - halt: changes the world (the arm stops) but repeating it is harmless.
 * - read: no effect at all.
 */
export function toolAnnotations(tool: ToolDefinition): ToolAnnotations {
  const title = tool.name.replace(/_/g, " ");
  if (tool.blocking)
    return { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  switch (tool.kind) {
    case "halt":
      return { title, readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    case "read":
      return { title, readOnlyHint: true, idempotentHint: true, openWorldHint: true };
  }
}
