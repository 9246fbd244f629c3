import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import { describeHolder } from "./LedgerOwner.js";

/**
 * Takes SQLite's exclusive lock and keeps it: in EXCLUSIVE locking mode the
 * lock won by the first write transaction is never released until the
 * connection closes (https://www.sqlite.org/pragma.html#pragma_locking_mode).
 * Set before the first access, it also keeps the WAL index in heap memory,
 * with no -shm file other processes could map
 * (https://www.sqlite.org/wal.html#noshm). The lock is a POSIX advisory lock
 * on the file, which the kernel drops when the process exits, SIGKILL included.
 * Held elsewhere: ARMB_ERR_LEDGER_LOCKED naming the holder from its owner file.
 */
export function takeExclusiveLock(db: Database.Database, path: string): void {
  db.pragma("locking_mode = EXCLUSIVE");
  try {
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
      const h = describeHolder(path);
      throw new ArmbridgeError(
        "ARMB_ERR_LEDGER_LOCKED",
        { path, holder: h.holder, pid: h.pid, since: h.since, host: h.host },
        { cause: error },
      );
    }
    throw error;
  }
}
