#!/usr/bin/env node
import { processIo } from "../../commandLine/CliIo.js";
import { runCli } from "./runCli.js";

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// The process should now end by itself. If a handle was left open (a bug
// somewhere), say so and exit anyway rather than hang an operator's terminal;
// unref'd, so this timer never keeps the process alive on its own.
setTimeout(() => {
  process.stderr.write("armbridge: still running 5 s after the command finished (a handle was left open); exiting\n");
  process.exit(code);
}, 5000).unref();
