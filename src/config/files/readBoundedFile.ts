import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/**
 * How large each kind of file armbridge reads may be. A config or a
 * calibration is a few kilobytes; a URDF of the largest arms in use is a
 * few megabytes; a collision mesh is a binary STL of up to tens of megabytes.
 * The bound is checked on the open file before a byte is read, so a runaway
 * file is refused at once instead of after the parser has spent gigabytes on it.
 */
export const FILE_LIMITS = {
  config: 4 * 1024 * 1024,
  calibration: 1024 * 1024,
  urdf: 32 * 1024 * 1024,
  mesh: 128 * 1024 * 1024,
} as const;

export type BoundedFileKind = keyof typeof FILE_LIMITS;

/** Thrown by `readBoundedFile`; the caller turns it into its own coded error naming the file's role. */
export class UnreadableFile extends Error {
  override readonly name = "UnreadableFile";
}

/**
 * Reads a whole regular file, refusing anything else before reading.
 *
 * The file is opened with O_NONBLOCK: opening a FIFO for reading otherwise
 * waits for a writer forever, and a read of one holds the thread until data
 * comes. For a regular file the flag changes nothing. The type and size are
 * judged on the opened descriptor (fstat), so the file cannot be swapped
 * between the check and the read.
 */
export function readBoundedFile(path: string, kind: BoundedFileKind): Buffer {
  const limit = FILE_LIMITS[kind];
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UnreadableFile(errnoReason(error), { cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnreadableFile(`it is ${fileKindOf(stats)}, not a regular file`);
    if (stats.size > limit) throw new UnreadableFile(`it is ${stats.size} bytes; a ${kind} file is at most ${limit} bytes`);
    const bytes = Buffer.alloc(stats.size);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return at === bytes.length ? bytes : bytes.subarray(0, at);
  } catch (error) {
    if (error instanceof UnreadableFile) throw error;
    throw new UnreadableFile(errnoReason(error), { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** The same, as UTF-8 text. */
export function readBoundedText(path: string, kind: BoundedFileKind): string {
  return readBoundedFile(path, kind).toString("utf8");
}

/**
 * A JSON file's value. A parse error names where the text went wrong, never
 * what the text says: a path that points at the wrong file (a secret, another
 * program's data) must not have its first bytes copied into an error message
 * that ends up in a terminal, a log or an HTTP answer.
 */
export function readBoundedJson(path: string, kind: BoundedFileKind): unknown {
  const text = readBoundedText(path, kind);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UnreadableFile(`it is not valid JSON${jsonErrorPlace(text, error)}`, { cause: error });
  }
}

/** Node 20's messages quote the text and give no position; later ones give "position N". Only the place is kept. */
function jsonErrorPlace(text: string, error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1];
  if (position === undefined) return text.trim() === "" ? " (the file is empty)" : "";
  const at = Number(position);
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  return ` (at line ${line}, column ${column})`;
}

/** What a file that is not a regular file is, in words: "a FIFO (named pipe)", "a directory", … */
export function fileKindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}

const ERRNO_REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a directory, not a regular file",
  ELOOP: "too many symbolic links",
};

function errnoReason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return (e.code === undefined ? undefined : ERRNO_REASONS[e.code]) ?? e.code ?? e.message;
}
