import { PassThrough } from "node:stream";
import type { CliIo } from "../../src/commandLine/CliIo.js";

/** A CliIo whose output is kept as text, and whose stdin a test types into. */
export interface CapturedIo extends CliIo {
  readonly stdin: PassThrough;
  out(): string;
  err(): string;
  /** Resolves once stdout or stderr (all output so far) matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function captureIo(env: NodeJS.ProcessEnv = {}, options: { readonly tty?: boolean } = {}): CapturedIo {
  let out = "";
  let err = "";
  const watchers = new Set<() => void>();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (options.tty) Object.assign(stdout, { isTTY: true });
  stdout.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    for (const w of [...watchers]) w();
  });
  stderr.on("data", (c: Buffer) => {
    err += c.toString("utf8");
    for (const w of [...watchers]) w();
  });
  const stdin = new PassThrough();
  return {
    stdout,
    stderr,
    stdin,
    env,
    out: () => out,
    err: () => err,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const text = out + err;
          const m = pattern.exec(text);
          if (m) {
            watchers.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in:\n${out}\n--- stderr ---\n${err}`));
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
  };
}
