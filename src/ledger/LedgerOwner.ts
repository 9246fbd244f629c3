import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { commandLineWithoutSecrets } from "./commandLineWithoutSecrets.js";

/**
 * Who holds a ledger, as its holder wrote it in `<ledger>.owner.json`.
 *
 * Only a description: the lock itself is SQLite's exclusive file lock, which
 * the OS drops when the holder dies (SIGKILL included). So a stale owner file
 * left by a dead process never blocks anyone; it only names the holder in the
 * refusal of a second bridge.
 */
export interface LedgerOwnerRecord {
  readonly pid: number;
  readonly host: string;
  /** ISO time the holder took the ledger. */
  readonly since: string;
  /** The holder's command line without its secrets (commandLineWithoutSecrets), shortened. */
  readonly command: string;
}

/** `data/ledger.sqlite` → `data/ledger.owner.json` (outside a `ledger.sqlite*` glob on purpose). */
export function ownerFileOf(ledgerPath: string): string {
  return `${ledgerPath.replace(/\.sqlite$/, "")}.owner.json`;
}

export function thisProcessAsOwner(now = new Date(), argv: readonly string[] = process.argv): LedgerOwnerRecord {
  return {
    pid: process.pid,
    host: hostname(),
    since: now.toISOString(),
    command: commandLineWithoutSecrets(argv.slice(1)).slice(0, 300),
  };
}

/**
 * Written atomically (rename), so a reader never sees half a file, and
 * readable by its owner only (0600): it names a process and its command,
 * which is nobody else's business on a shared machine. The mode is given at
 * creation (the umask can only take bits away) and set again, since a
 * leftover temporary file would keep its old mode.
 */
export function writeOwnerFile(ledgerPath: string, record: LedgerOwnerRecord): void {
  const file = ownerFileOf(ledgerPath);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(record) + "\n", { mode: OWNER_FILE_MODE });
  chmodSync(tmp, OWNER_FILE_MODE);
  renameSync(tmp, file);
}

export const OWNER_FILE_MODE = 0o600;

export function readOwnerFile(ledgerPath: string): LedgerOwnerRecord | undefined {
  const file = ownerFileOf(ledgerPath);
  if (!existsSync(file)) return undefined;
  try {
    const j = JSON.parse(readFileSync(file, "utf8")) as Partial<LedgerOwnerRecord>;
    if (typeof j.pid !== "number" || typeof j.host !== "string" || typeof j.since !== "string") return undefined;
    return { pid: j.pid, host: j.host, since: j.since, command: typeof j.command === "string" ? j.command : "" };
  } catch {
    return undefined;
  }
}

/** Removes the owner file if it still names this process (a successor may have written its own). */
export function removeOwnerFile(ledgerPath: string): void {
  const record = readOwnerFile(ledgerPath);
  if (record && record.pid === process.pid && record.host === hostname())
    rmSync(ownerFileOf(ledgerPath), { force: true });
}

/** Whether `pid` names a live process on this host (EPERM: alive, someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The holder of a locked ledger, in words and as details for ARMB_ERR_LEDGER_LOCKED. */
export function describeHolder(ledgerPath: string): { holder: string; pid?: number; since?: string; host?: string } {
  const r = readOwnerFile(ledgerPath);
  if (!r) return { holder: "another process that has not described itself (no owner file yet)" };
  const who = `pid ${r.pid} on ${r.host}, since ${r.since}${r.command ? ` (${r.command})` : ""}`;
  if (r.host === hostname() && !alive(r.pid)) {
    // The lock is held, but not by the process the file names: a holder that has not yet written its file.
    return { holder: `another process (the owner file names ${who}, which is no longer running)` };
  }
  return { holder: who, pid: r.pid, since: r.since, host: r.host };
}
