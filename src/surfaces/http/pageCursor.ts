import { ArmbridgeError } from "../../errors.js";
import type { LedgerCursor } from "../../bridge/BridgePort.js";

/**
 * The `cursor` / `next_cursor` of GET /v1/actions: the last row's
 * (created_at, action_id), which is unique where created_at alone is not.
 * Opaque to clients (base64url of JSON), so its inside may change.
 */
export function encodePageCursor(cursor: LedgerCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.actionId]), "utf8").toString("base64url");
}

/** Throws ARMB_ERR_CURSOR_INVALID for anything encodePageCursor did not make. */
export function decodePageCursor(text: string): LedgerCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const [createdAt, actionId] = parsed as unknown[];
    if (
      typeof createdAt === "number" &&
      Number.isSafeInteger(createdAt) &&
      createdAt >= 0 &&
      typeof actionId === "string" &&
      actionId.length > 0 &&
      actionId.length <= 200
    ) {
      return { createdAt, actionId };
    }
  }
  throw new ArmbridgeError("ARMB_ERR_CURSOR_INVALID", { cursor: JSON.stringify(text.slice(0, 80)) });
}
