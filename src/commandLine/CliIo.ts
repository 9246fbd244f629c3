/**
 * The process I/O a subcommand may touch. Passed in, never taken from
 * `process`, so tests can run a command in-process and read what it wrote.
 * stdout carries machine-readable output only (JSON lines); people read stderr.
 */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  /** What a person types (`agent --live` sends typed lines as user turns); absent in-process. */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
}

/** The real process streams. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin };
}
