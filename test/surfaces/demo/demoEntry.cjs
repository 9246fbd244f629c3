// Runs `armbridge demo` from dist/ for the tests, used only while the CLI
// main (dist/src/surfaces/cli/main.js) does not exist yet.
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

import(pathToFileURL(join(__dirname, "..", "..", "..", "dist", "src", "surfaces", "demo", "demoCommand.js")).href)
  .then(({ run }) => run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`demoEntry: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
