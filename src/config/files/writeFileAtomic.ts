import { randomBytes } from "node:crypto";
import { closeSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replaces a file whole or not at all: the bytes go to a temporary file in
 * the same folder, are flushed to disk, and the temporary file is renamed
 * over the old one (rename within one file system is atomic on POSIX). A
 * crash at any point leaves either the old file or the new one, never half of
 * each. A path that is a symbolic link keeps being one: its target is
 * replaced. The old file's permission bits are kept.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const target = existingTarget(path);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const mode = modeOf(target);
  const fd = openSync(temporary, "wx", mode ?? 0o644);
  try {
    try {
      if (mode !== undefined) fchmodSync(fd, mode);
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dirname(target));
}

function existingTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** The rename itself is durable only once the folder's entry is on disk. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, "r");
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a folder; the rename has still happened.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
