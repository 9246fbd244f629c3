import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { ArmbridgeError, isArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import { classifySqliteError } from "./classifySqliteError.js";
import { initialiseLedger } from "./initialiseLedger.js";
import { thisProcessAsOwner, writeOwnerFile } from "./LedgerOwner.js";
import { takeExclusiveLock } from "./takeExclusiveLock.js";

const SQLITE_HEADER = "SQLite format 3\u0000";
/** How long a second opener waits for the lock before it says who holds it (a holder just killed lets go at once). */
const DEFAULT_LOCK_WAIT_MS = 1000;

/**
 * Opens (or creates) the ledger's database at `path` (":memory:" for a
 * throwaway one), initialised and, on disk, locked for this process alone
 * with its owner file written. A file that is not ours, or is damaged, or is
 * held by another process, is refused with a coded error and left untouched.
 */
export function openLedgerDatabase(
  path: string,
  options: { readonly log: Logger; readonly lockWaitMs?: number | undefined },
): Database.Database {
  const onDisk = path !== ":memory:";
  if (onDisk) checkFileHeader(path);
  let db: Database.Database;
  try {
    if (onDisk) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { timeout: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS });
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_OPEN", { path, reason: (error as Error).message }, { cause: error });
  }
  try {
    if (onDisk) takeExclusiveLock(db, path);
    initialiseLedger(db, path, options.log);
    // Again in WAL mode: the lock then covers the WAL too, and is held from here to close().
    if (onDisk) takeExclusiveLock(db, path);
  } catch (error) {
    db.close();
    if (isArmbridgeError(error)) throw error;
    throw classifySqliteError(error, path);
  }
  if (onDisk) writeOwnerFile(path, thisProcessAsOwner());
  return db;
}

/** Refuses files that are not SQLite at all, before SQLite gets a chance to write to them. */
function checkFileHeader(path: string): void {
  if (!existsSync(path)) return;
  const size = statSync(path).size;
  if (size === 0) return;
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    if (n < 16 || buf.toString("latin1") !== SQLITE_HEADER) {
      throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", { path, reason: "the file is not a SQLite database" });
    }
  } finally {
    closeSync(fd);
  }
}
