import type { CallClient } from "../../ledger/CallClient.js";

/**
 * Call ids that begin `mcp:` are MCP sessions' own: `mcp:<session>:<the
 * JSON-RPC id as JSON>` (`mcp:S:7` for the number 7, `mcp:S:"7"` for the
 * string "7", which JSON-RPC holds to be another request). A re-sent request
 * of the same session joins or replays its call; no other client may take
 * such an id, or it could answer that session's next request with its own
 * result, or have it refused as a reused id.
 */
const MCP_PREFIX = "mcp:";

/** The call id of a JSON-RPC request in an MCP session: the id keeps its type. */
export function mcpSessionCallId(session: string, requestId: string | number): string {
  return `${MCP_PREFIX}${session}:${JSON.stringify(requestId)}`;
}

/**
 * Why a client may not use this call id, or undefined when it may: an id in
 * an MCP session's namespace is only for a call of that session (recorded as
 * client kind `mcp` with that session, which only the MCP endpoint sets).
 */
export function callIdNamespaceProblem(id: string, client: CallClient | undefined): string | undefined {
  if (!id.startsWith(MCP_PREFIX)) return undefined;
  if (client?.kind === "mcp" && client.session !== undefined && id.startsWith(`${MCP_PREFIX}${client.session}:`))
    return undefined;
  return `call ids that begin "${MCP_PREFIX}" belong to the MCP session they name; choose an id of your own`;
}
