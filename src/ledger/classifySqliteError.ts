import { ArmbridgeError } from "../errors.js";

/** A SQLite failure on the ledger file as a coded error: a damaged file is CORRUPT, anything else OPEN. */
export function classifySqliteError(error: unknown, path: string): ArmbridgeError {
  const code = (error as { code?: unknown }).code;
  const reason = (error as Error).message ?? String(error);
  if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") {
    return new ArmbridgeError("ARMB_ERR_LEDGER_CORRUPT", { path, reason }, { cause: error });
  }
  return new ArmbridgeError("ARMB_ERR_LEDGER_OPEN", { path, reason }, { cause: error });
}
