import type { ActionRow } from "../../ledger/ActionRow.js";
import { resultFromRow } from "./resultFromRow.js";

/** A row's words, derived from its state: what the CLI, the API, the console and MCP all show for it. */
export function messageOf(row: ActionRow): string {
  return resultFromRow(row).message;
}
