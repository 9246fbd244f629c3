import { isArmbridgeError } from "../../errors.js";
import { ApiError } from "../../wire/client/ApiError.js";
import type { CliIo, SubcommandRun } from "../../commandLine/CliIo.js";
import { packageVersion } from "../packageVersion.js";

/** Exit codes: 0 success, 1 runtime error (printed with its code), 2 bad command line. */
export const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

interface LocalCommand {
  readonly summary: string;
  /**
   * Loaded on use: `serve` pulls in the bridge, SQLite, serialport and
   * fastify (~0.4 s of start-up) that `call` or `--help` should not pay for.
   * `flags` are the names the command parses (a test holds its help to naming each).
   */
  readonly load: () => Promise<LoadedCommand>;
}

export interface LoadedCommand {
  readonly help: string;
  readonly run: SubcommandRun;
  /** The flags it parses, each named in its help (test/surfaces/cli/cliConventions.test.ts). */
  readonly flags: readonly string[];
}

export const LOCAL: Readonly<Record<string, LocalCommand>> = {
  serve: {
    summary: "run the bridge, the HTTP API and the operator console",
    load: async () =>
      import("./serveCommand.js").then((m) => ({ help: m.SERVE_HELP, run: m.serveCommand, flags: m.SERVE_FLAG_NAMES })),
  },
  call: {
    summary: "send one function call to a running serve",
    load: async () =>
      import("./callCommand.js").then((m) => ({
        help: m.CALL_HELP,
        run: m.callCommand,
        flags: Object.keys(m.CALL_FLAGS),
      })),
  },
  actions: {
    summary: "list the intent ledger of a running serve",
    load: async () =>
      import("./actionsCommand.js").then((m) => ({
        help: m.ACTIONS_HELP,
        run: m.actionsCommand,
        flags: Object.keys(m.ACTIONS_FLAGS),
      })),
  },
  confirm: {
    summary: "confirm an unknown action: reached, partial or not_moved",
    load: async () =>
      import("./confirmCommand.js").then((m) => ({
        help: m.CONFIRM_HELP,
        run: m.confirmCommand,
        flags: Object.keys(m.CONFIRM_FLAGS),
      })),
  },
  recover: {
    summary: "after a servo shut down on a hardware error: reboot it and hold its pose (operator step)",
    load: async () =>
      import("./recoverCommand.js").then((m) => ({
        help: m.RECOVER_HELP,
        run: m.recoverCommand,
        flags: Object.keys(m.RECOVER_FLAGS),
      })),
  },
  bus: {
    summary: "find the servos on a Dynamixel / Feetech bus, set a new servo's id or baud",
    load: async () =>
      import("./bus/busCommand.js").then((m) => ({ help: m.BUS_HELP, run: m.busCommand, flags: m.BUS_FLAG_NAMES })),
  },
  calibrate: {
    summary: "measure a servo-bus arm's centres, ranges and directions; import/export LeRobot's calibration",
    load: async () =>
      import("./calibrate/calibrateCommand.js").then((m) => ({
        help: m.CALIBRATE_HELP,
        run: m.calibrateCommand,
        flags: Object.keys(m.CALIBRATE_FLAGS),
      })),
  },
  doctor: {
    summary:
      "check a set-up: device and permissions, latency timer, servos, power, calibration, envelope, cameras, ROS, ledger",
    load: async () =>
      import("./doctor/doctorCommand.js").then((m) => ({
        help: m.DOCTOR_HELP,
        run: m.doctorCommand,
        flags: Object.keys(m.DOCTOR_FLAGS),
      })),
  },
  camera: {
    summary: "touch-off calibration of a camera's table mapping: tip positions from FK, pixels from you",
    load: async () =>
      import("./camera/cameraCalibrateCommand.js").then((m) => ({
        help: m.CAMERA_HELP,
        run: m.cameraCommand,
        flags: Object.keys(m.CAMERA_FLAGS),
      })),
  },
  approvals: {
    summary: "list calls waiting for an operator's approval",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.APPROVALS_HELP,
        run: m.approvalsCommand,
        flags: Object.keys(m.APPROVALS_FLAGS),
      })),
  },
  approve: {
    summary: "approve a waiting call: its motion runs",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.APPROVE_HELP,
        run: m.approveCommand,
        flags: Object.keys(m.DECISION_FLAGS),
      })),
  },
  halt: {
    summary: "halt the arm now and latch the bridge until an operator releases it",
    load: async () =>
      import("./haltCommand.js").then((m) => ({
        help: m.HALT_HELP,
        run: m.haltCommand,
        flags: Object.keys(m.HALT_FLAGS),
      })),
  },
  release: {
    summary: "release the halt latch (an operator, by name): motion is accepted again",
    load: async () =>
      import("./haltCommand.js").then((m) => ({
        help: m.RELEASE_HELP,
        run: m.releaseCommand,
        flags: Object.keys(m.RELEASE_FLAGS),
      })),
  },
  status: {
    summary: "what a running serve is doing: halted (by whom, since), link, in flight, waiting for an operator",
    load: async () =>
      import("./statusCommand.js").then((m) => ({
        help: m.STATUS_HELP,
        run: m.statusCommand,
        flags: Object.keys(m.STATUS_FLAGS),
      })),
  },
  tools: {
    summary: "list the tools a model can call, with their arguments",
    load: async () =>
      import("./toolsCommand.js").then((m) => ({
        help: m.TOOLS_HELP,
        run: m.toolsCommand,
        flags: Object.keys(m.TOOLS_FLAGS),
      })),
  },
  decline: {
    summary: "decline a waiting call: rejected, nothing sent",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.DECLINE_HELP,
        run: m.declineCommand,
        flags: Object.keys(m.DECISION_FLAGS),
      })),
  },
};

/** A command module of another surface: `export async function run(argv, io)`. */
export interface SubcommandModule {
  readonly run?: unknown;
}

/**
 * Commands owned by other surfaces, loaded only when used (the Gemini SDK and
 * the MCP SDK cost start-up time `serve` should not pay). Each `load` imports
 * a literal path, so tsc and the floors check see the edge; `module` is that
 * same path, which names the file when a build lacks it.
 */
export const DYNAMIC: Readonly<
  Record<string, { readonly summary: string; readonly module: string; readonly load: () => Promise<SubcommandModule> }>
> = {
  agent: {
    summary: 'run a Gemini agent on an instruction: armbridge agent "<instruction>"',
    module: "./agent/agentCommand.js",
    load: () => import("./agent/agentCommand.js"),
  },
  mcp: {
    summary: "serve the tools over MCP (stdio) for MCP agent hosts",
    module: "./mcp/mcpCommand.js",
    load: () => import("./mcp/mcpCommand.js"),
  },
  demo: {
    summary: "start the simulator and the bridge and run the scripted session (npm start)",
    module: "../demo/demoCommand.js",
    load: () => import("../demo/demoCommand.js"),
  },
};

export function topHelp(): string {
  const rows = [...Object.entries(LOCAL), ...Object.entries(DYNAMIC)].map(
    ([name, c]) => `  ${name.padEnd(10)}${c.summary}`,
  );
  return `Usage: armbridge <command> [flags]   (armbridge <command> --help for its flags)

Drive a robot arm from an LLM agent's function calls, safely.

Commands:
${rows.join("\n")}

Flags:
  --version          print armbridge's version
  -h, --help         this help

Commands that print records print tables and sentences on a terminal, and JSON
with --json or whenever stdout is not a terminal (a pipe, a file, a script).
Messages and logs go to stderr.
Exit codes: 0 ok, 1 runtime error (printed with its ARMB_ERR_* code), 2 bad command line.
`;
}

const wantsHelp = (argv: readonly string[]): boolean => argv.includes("--help") || argv.includes("-h");

/** Runs one command line; never throws, returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`armbridge: no command given\n\n${topHelp()}`);
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(topHelp());
    return EXIT.ok;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.stdout.write(`armbridge ${packageVersion()}\n`);
    return EXIT.ok;
  }
  try {
    const local = LOCAL[name];
    if (local) {
      const command = await local.load();
      if (wantsHelp(rest)) {
        io.stdout.write(command.help + "\n");
        return EXIT.ok;
      }
      return await command.run(rest, io);
    }
    const dynamic = DYNAMIC[name];
    if (dynamic)
      return await runSubcommandModule(name, new URL(dynamic.module, import.meta.url), rest, io, dynamic.load);
    io.stderr.write(
      `armbridge: unknown command ${JSON.stringify(name)}; commands: ${[...Object.keys(LOCAL), ...Object.keys(DYNAMIC)].join(", ")}\n`,
    );
    return EXIT.usage;
  } catch (error) {
    return reportError(name, error, io);
  }
}

/**
 * Loads a subcommand module (`export async function run(argv, io)`) and runs
 * it. `url` is the module `load` imports: only its absence is "not available".
 */
export async function runSubcommandModule(
  name: string,
  url: URL,
  argv: readonly string[],
  io: CliIo,
  load: () => Promise<SubcommandModule> = async () => (await import(url.href)) as SubcommandModule,
): Promise<number> {
  let mod: SubcommandModule;
  try {
    mod = await load();
  } catch (error) {
    // Only the command's own module being absent is "not available"; an
    // error inside it (or in what it imports) is a real fault and surfaces as one.
    const e = error as { code?: string; url?: string; message?: string };
    if (e.code === "ERR_MODULE_NOT_FOUND" && (e.url === url.href || (e.message ?? "").includes(url.pathname))) {
      io.stderr.write(
        `armbridge: ARMB_ERR_INTERNAL: the ${name} command is not available in this build (${url.pathname} is missing); run \`npm run build\`\n`,
      );
      return EXIT.runtime;
    }
    throw error;
  }
  if (typeof mod.run !== "function") {
    io.stderr.write(`armbridge: ARMB_ERR_INTERNAL: ${url.pathname} does not export run(argv, io)\n`);
    return EXIT.runtime;
  }
  return (await (mod.run as SubcommandRun)(argv, io)) ?? EXIT.ok;
}

function reportError(command: string, error: unknown, io: CliIo): number {
  if (isArmbridgeError(error, "ARMB_ERR_CLI_USAGE")) {
    io.stderr.write(`armbridge ${command}: ${error.message}\n(armbridge ${command} --help for usage)\n`);
    return EXIT.usage;
  }
  if (isArmbridgeError(error)) {
    io.stderr.write(`armbridge ${command}: ${error.code}: ${error.message}\n`);
    return EXIT.runtime;
  }
  if (error instanceof ApiError) {
    io.stderr.write(`armbridge ${command}: ${error.code}: ${error.message} (HTTP ${error.status})\n`);
    return EXIT.runtime;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(`armbridge ${command}: ARMB_ERR_INTERNAL: ${message}\n`);
  return EXIT.runtime;
}
