import type { CliIo } from "./CliIo.js";

/** A command's body: one command line in, an exit code out (0 ok, 1 runtime error, 2 bad command line). */
export type CommandRun = (argv: readonly string[], io: CliIo) => Promise<number>;

/** What a command is once its module is loaded. */
export interface LoadedCommand {
  /** Its `--help`, starting with one `Usage:` line and naming every flag in a `Flags:` section. */
  readonly help: string;
  /** Every flag it parses, by name without dashes: the keys of the schema its parser reads. */
  readonly flags: readonly string[];
  readonly run: CommandRun;
}

/**
 * One command of `armbridge` or `armbridge-sim`. The name and summary are
 * known without loading anything (the top-level help lists them); the rest
 * is loaded on use, by `import()` of a literal path so tsc and the floors
 * check see the edge: `serve` pulls in the bridge, SQLite, serialport and
 * fastify, `agent` the Gemini SDK, `mcp` the MCP SDK, none of which `call`
 * or `--help` should pay for.
 */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<LoadedCommand>;
}
