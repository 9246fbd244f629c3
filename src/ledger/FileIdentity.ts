import { statSync } from "node:fs";

/** A file as the OS knows it: a path can later name another file (replaced) or none (unlinked). */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

export function fileIdentityOf(path: string): FileIdentity | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

/** What became of a file since `was` was taken: undefined when `path` still names it. */
export function fileChange(path: string, was: FileIdentity): "deleted" | "replaced" | undefined {
  const now = fileIdentityOf(path);
  if (!now) return "deleted";
  return now.dev === was.dev && now.ino === was.ino ? undefined : "replaced";
}
