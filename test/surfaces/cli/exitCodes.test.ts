import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI, runCli } from "./processes.js";

// These spawn the built CLI; `npm test` builds first (pretest).
const built = existsSync(CLI);
if (!built) console.warn(`skipping CLI exit-code tests: ${CLI} is missing; run \`npm run build\` first`);

describe.skipIf(!built)("armbridge exit codes (needs dist: npm run build)", () => {
  it("exits 2 with the usage on stderr when no command is given", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no command given");
    expect(r.stdout).toBe("");
  });

  it("exits 2 naming an unknown command", async () => {
    const r = await runCli(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"frobnicate"');
  });

  it.each([
    ["serve with no arm", ["serve"], "--serial"],
    [
      "serve --port (a flag serve spells --http), naming it and how to give the address",
      ["serve", "--port", "1234"],
      "Unknown option '--port' (the API's address is --http HOST:PORT",
    ],
    [
      "serve --port with no arm, saying the arm is missing too",
      ["serve", "--port", "1234"],
      "no arm given: say which arm to drive with --serial LINK",
    ],
    ["serve --serial without a value", ["serve", "--serial"], "--serial needs a value"],
    ["serve with both arms", ["serve", "--serial", "tcp://127.0.0.1:1", "--ros"], "both"],
    ["serve with a bad --http", ["serve", "--serial", "tcp://127.0.0.1:1", "--http", "localhost"], "--http"],
    ["serve with an unknown flag", ["serve", "--serial", "tcp://127.0.0.1:1", "--colour", "red"], "--colour"],
    ["call without a tool", ["call", "--token", "t"], "name the tool"],
    ["call with args that are not JSON", ["call", "move_joints", "--args", "{nope", "--token", "t"], "--args"],
    ["call with a bad deadline", ["call", "stop", "--deadline-ms", "soon", "--token", "t"], "--deadline-ms"],
    ["call without a token", ["call", "stop"], "ARMBRIDGE_TOKEN"],
    ["actions with an unknown state", ["actions", "--state", "lost", "--token", "t"], "--state"],
    [
      "confirm with a bad outcome",
      ["confirm", "act_1", "--outcome", "maybe", "--operator", "Ada", "--token", "t"],
      "--outcome",
    ],
    ["confirm without an operator", ["confirm", "act_1", "--outcome", "done", "--token", "t"], "--operator"],
    [
      "confirm without an action id",
      ["confirm", "--outcome", "done", "--operator", "Ada", "--token", "t"],
      "name the action",
    ],
  ])("exits 2 for %s, naming what was wrong", async (_what, args, mention) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(mention);
    expect(r.stdout).toBe("");
  });

  it.each([["--help"], ["-h"], ["serve", "--help"], ["call", "--help"], ["actions", "--help"], ["confirm", "-h"]])(
    "exits 0 for %s with usage",
    async (...args) => {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Usage: armbridge");
    },
  );

  it("exits 1 with ARMB_ERR_HTTP_UNREACHABLE when no serve is listening", async () => {
    const r = await runCli(["actions", "--url", "http://127.0.0.1:9", "--token", "t"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ARMB_ERR_HTTP_UNREACHABLE");
  });

  it("exits 1 with the config error code when serve gets a missing config file", async () => {
    const r = await runCli([
      "serve",
      "--serial",
      "tcp://127.0.0.1:9",
      "--config",
      "/nonexistent/arm.yaml",
      "--token",
      "t",
      "--data",
      ":memory:",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ARMB_ERR_CONFIG_READ");
  });
});
