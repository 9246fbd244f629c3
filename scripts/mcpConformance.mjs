// The official MCP conformance suite's server scenarios against /mcp of a
// running `armbridge serve` (over the simulated arm), with the expected
// failures named in test/surfaces/mcp/conformance-expected-failures.yaml.
//   node scripts/mcpConformance.mjs [path/to/conformance/dist/index.js]
// The suite runs from its own install (a devDependency, or a private prefix
// on Node 20: `npm install --prefix DIR @modelcontextprotocol/conformance@0.1.12`,
// the last release that runs without Node 22's fs.globSync); without it the
// script says so and exits 0. The suite has no way to send a bearer token, so
// it reaches serve through a relay on loopback that adds serve's token.
// Needs `npm run build` first. Exit code: the suite's.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");
const TOKEN = "conformance-token-0123456789";

function findSuite() {
  if (process.argv[2]) return process.argv[2];
  if (process.env.MCP_CONFORMANCE) return process.env.MCP_CONFORMANCE;
  try {
    return createRequire(join(root, "package.json")).resolve("@modelcontextprotocol/conformance/dist/index.js");
  } catch {
    return undefined;
  }
}

/** Starts a process and resolves with it and its first stdout line that parses as JSON with `field`. */
function startWithReadyLine(args, field) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.resume();
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args[0]} exited ${code} before it was ready`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg[field] !== undefined) resolve({ child, ready: msg });
      } catch {
        // not the ready line
      }
    });
  });
}

/** A loopback relay adding serve's bearer token (and nothing else) to every request. */
function tokenRelay(target) {
  const to = new URL(target);
  const server = createServer((req, res) => {
    // Host and Origin go through as the suite sent them: its DNS-rebinding scenario judges serve, not the relay.
    const headers = { ...req.headers, authorization: `Bearer ${TOKEN}` };
    const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const suite = findSuite();
if (!suite || !existsSync(suite)) {
  console.log(
    "MCP conformance: skipped — @modelcontextprotocol/conformance is not installed (see the header of this script)",
  );
  process.exit(0);
}
const dist = join(root, "dist");
if (!existsSync(join(dist, "src", "surfaces", "cli", "main.js"))) {
  console.log("MCP conformance: skipped — dist/ is missing; run `npm run build` first");
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), "armb-conformance-"));
const sim = await startWithReadyLine([join(dist, "firmware-sim", "main.js"), "--link", "tcp", "--port", "0"], "link");
const serve = await startWithReadyLine(
  [
    join(dist, "src", "surfaces", "cli", "main.js"),
    "serve",
    "--serial",
    sim.ready.link,
    "--http",
    "127.0.0.1:0",
    "--token",
    TOKEN,
    "--data",
    join(dir, "data"),
  ],
  "http",
);
const relay = await tokenRelay(serve.ready.http);
const url = `http://127.0.0.1:${relay.address().port}/mcp`;
const expected = join(root, "test", "surfaces", "mcp", "conformance-expected-failures.yaml");
const extra = process.argv.slice(3);
const code = await new Promise((resolve) => {
  const run = spawn(process.execPath, [suite, "server", "--url", url, "--expected-failures", expected, ...extra], {
    stdio: "inherit",
  });
  run.once("exit", (c) => resolve(c ?? 1));
});
relay.close();
serve.child.kill("SIGTERM");
sim.child.kill("SIGTERM");
await new Promise((r) => setTimeout(r, 500));
rmSync(dir, { recursive: true, force: true });
process.exit(code);
