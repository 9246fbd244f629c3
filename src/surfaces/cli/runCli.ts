import { isArmbridgeError } from "../../errors.js";
import { ApiError } from "../../wire/client/ApiError.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import type { CommandSpec } from "../../commandLine/CommandSpec.js";
import type { FlagSchema } from "../../commandLine/parseFlags.js";
import { packageVersion } from "../packageVersion.js";

/** Exit codes: 0 success, 1 runtime error (printed with its code), 2 bad command line. */
export const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

/** Each command of `armbridge`, loaded on use by `import()` of a literal path (see CommandSpec). */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "serve",
    summary: "run the bridge, the HTTP API and the operator console",
    load: async () =>
      import("./serveCommand.js").then((m) => ({ help: m.SERVE_HELP, run: m.serveCommand, flags: m.SERVE_FLAG_NAMES })),
  },
  {
    name: "call",
    summary: "send one function call to a running serve",
    load: async () =>
      import("./callCommand.js").then((m) => ({ help: m.CALL_HELP, run: m.callCommand, flags: keys(m.CALL_FLAGS) })),
  },
  {
    name: "actions",
    summary: "list the intent ledger of a running serve",
    load: async () =>
      import("./actionsCommand.js").then((m) => ({
        help: m.ACTIONS_HELP,
        run: m.actionsCommand,
        flags: keys(m.ACTIONS_FLAGS),
      })),
  },
  {
    name: "confirm",
    summary: "confirm an unknown action: reached, partial or not_moved",
    load: async () =>
      import("./confirmCommand.js").then((m) => ({
        help: m.CONFIRM_HELP,
        run: m.confirmCommand,
        flags: keys(m.CONFIRM_FLAGS),
      })),
  },
  {
    name: "recover",
    summary:
      "after a servo shut down on a hardware error: reboot it and hold its pose; --ros: an arm's recovery after a reflex (operator step)",
    load: async () =>
      import("./recoverCommand.js").then((m) => ({
        help: m.RECOVER_HELP,
        run: m.recoverCommand,
        flags: keys(m.RECOVER_FLAGS),
      })),
  },
  {
    name: "bus",
    summary: "find the servos on a Dynamixel / Feetech bus, set a new servo's id or baud",
    load: async () =>
      import("./bus/busCommand.js").then((m) => ({ help: m.BUS_HELP, run: m.busCommand, flags: m.BUS_FLAG_NAMES })),
  },
  {
    name: "calibrate",
    summary: "measure a servo-bus arm's centres, ranges and directions; import/export LeRobot's calibration",
    load: async () =>
      import("./calibrate/calibrateCommand.js").then((m) => ({
        help: m.CALIBRATE_HELP,
        run: m.calibrateCommand,
        flags: keys(m.CALIBRATE_FLAGS),
      })),
  },
  {
    name: "doctor",
    summary:
      "check a set-up: device and permissions, latency timer, servos, power, calibration, envelope, cameras, ROS, ledger",
    load: async () =>
      import("./doctor/doctorCommand.js").then((m) => ({
        help: m.DOCTOR_HELP,
        run: m.doctorCommand,
        flags: keys(m.DOCTOR_FLAGS),
      })),
  },
  {
    name: "camera",
    summary: "touch-off calibration of a camera's table mapping: tip positions from FK, pixels from you",
    load: async () =>
      import("./camera/cameraCalibrateCommand.js").then((m) => ({
        help: m.CAMERA_HELP,
        run: m.cameraCommand,
        flags: keys(m.CAMERA_FLAGS),
      })),
  },
  {
    name: "approvals",
    summary: "list calls waiting for an operator's approval",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.APPROVALS_HELP,
        run: m.approvalsCommand,
        flags: keys(m.APPROVALS_FLAGS),
      })),
  },
  {
    name: "approve",
    summary: "approve a waiting call: its motion runs",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.APPROVE_HELP,
        run: m.approveCommand,
        flags: keys(m.DECISION_FLAGS),
      })),
  },
  {
    name: "halt",
    summary: "halt the arm now and latch the bridge until an operator releases it",
    load: async () =>
      import("./haltCommand.js").then((m) => ({ help: m.HALT_HELP, run: m.haltCommand, flags: keys(m.HALT_FLAGS) })),
  },
  {
    name: "release",
    summary: "release the halt latch (an operator, by name): motion is accepted again",
    load: async () =>
      import("./haltCommand.js").then((m) => ({
        help: m.RELEASE_HELP,
        run: m.releaseCommand,
        flags: keys(m.RELEASE_FLAGS),
      })),
  },
  {
    name: "status",
    summary: "what a running serve is doing: halted (by whom, since), link, in flight, waiting for an operator",
    load: async () =>
      import("./statusCommand.js").then((m) => ({
        help: m.STATUS_HELP,
        run: m.statusCommand,
        flags: keys(m.STATUS_FLAGS),
      })),
  },
  {
    name: "tools",
    summary: "list the tools a model can call, with their arguments",
    load: async () =>
      import("./toolsCommand.js").then((m) => ({
        help: m.TOOLS_HELP,
        run: m.toolsCommand,
        flags: keys(m.TOOLS_FLAGS),
      })),
  },
  {
    name: "export",
    summary: "turn serve --record's MCAP recordings into a LeRobot dataset: export lerobot --from DIR --to OUT",
    load: async () =>
      import("./export/exportCommand.js").then((m) => ({
        help: m.EXPORT_HELP,
        run: m.exportCommand,
        flags: keys(m.EXPORT_FLAGS),
      })),
  },
  {
    name: "decline",
    summary: "decline a waiting call: rejected, nothing sent",
    load: async () =>
      import("./approvalsCommand.js").then((m) => ({
        help: m.DECLINE_HELP,
        run: m.declineCommand,
        flags: keys(m.DECISION_FLAGS),
      })),
  },
  {
    name: "agent",
    summary: 'run a Gemini agent on an instruction: armbridge agent "<instruction>"',
    load: async () =>
      import("./agent/agentCommand.js").then((m) => ({ help: m.AGENT_USAGE, run: m.run, flags: m.AGENT_FLAG_NAMES })),
  },
  {
    name: "mcp",
    summary: "serve the tools over MCP (stdio) for MCP agent hosts",
    load: async () =>
      import("./mcp/mcpCommand.js").then((m) => ({
        help: m.MCP_HELP,
        // Its stdin is a node Readable: the process's, or a test's stream.
        run: async (argv, io) => m.run(argv, io as Parameters<typeof m.run>[1]),
        flags: m.MCP_FLAG_NAMES,
      })),
  },
  {
    name: "demo",
    summary: "start the simulator and the bridge and run the scripted session (npm start)",
    load: async () =>
      import("../demo/demoCommand.js").then((m) => ({ help: m.DEMO_HELP, run: m.run, flags: m.DEMO_FLAG_NAMES })),
  },
];

const keys = (schema: FlagSchema): readonly string[] => Object.keys(schema);

export function topHelp(): string {
  const rows = COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.summary}`);
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
  const spec = COMMANDS.find((c) => c.name === name);
  if (spec === undefined) {
    io.stderr.write(
      `armbridge: unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(", ")}\n`,
    );
    return EXIT.usage;
  }
  try {
    const command = await spec.load();
    if (wantsHelp(rest)) {
      io.stdout.write(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
      return EXIT.ok;
    }
    return await command.run(rest, io);
  } catch (error) {
    return reportError(name, error, io);
  }
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
