#!/usr/bin/env node
import { processIo } from "../src/commandLine/CliIo.js";
import { SIM_COMMAND } from "./simCommand.js";

/** armbridge-sim: the simulated arm controller as a process. Ready line on stdout, logs on stderr. */
SIM_COMMAND.load()
  .then(async (command) => command.run(process.argv.slice(2), processIo()))
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`armbridge-sim: ${String(error)}\n`);
      process.exit(1);
    },
  );
