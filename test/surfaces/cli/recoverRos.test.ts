import { PassThrough } from "node:stream";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import type { CliIo } from "../../../src/commandLine/CliIo.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { recoverCommand } from "../../../src/surfaces/cli/recoverCommand.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import type { FakeArm } from "../http/FakeArm.js";
import { ReflexArm } from "../http/ReflexArm.js";

// `armbridge recover --ros` in-process against a real listening serve app: the steps are shown
// first and run only on the operator's word. Judged by what the transport was asked to run.

const TOKEN = "api-token-123";
const OPERATOR = "operator-token-456";
let bridge: Bridge | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  await bridge?.close();
  app = undefined;
  bridge = undefined;
});

async function serve(arm: FakeArm): Promise<string> {
  bridge = await Bridge.start({
    config: loadConfig(),
    transport: { kind: "custom", transport: arm },
    dataDir: ":memory:",
  });
  app = await buildHttpApp(bridge, { token: TOKEN, operatorToken: OPERATOR, bodyLimit: 4096 });
  return app.listen({ host: "127.0.0.1", port: 0 });
}

function io(url: string): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => (out += c.toString()));
  stderr.on("data", (c: Buffer) => (err += c.toString()));
  // No stdin: not a terminal, so nobody can type "y".
  return {
    stdout,
    stderr,
    env: { ARMBRIDGE_URL: url, ARMBRIDGE_OPERATOR_TOKEN: OPERATOR },
    out: () => out,
    err: () => err,
  };
}

describe("armbridge recover --ros", () => {
  it("without --yes shows each step and runs nothing (exit 2)", async () => {
    const arm = new ReflexArm(loadConfig());
    const cli = io(await serve(arm));
    const code = await recoverCommand(["--ros", "--operator", "ada"], cli);
    expect(code).toBe(2);
    expect(cli.err()).toContain("1. clear the robot's error: /action_server/error_recovery");
    expect(cli.err()).toContain("2. activate fr3_arm_controller, joint_state_broadcaster");
    expect(cli.err()).toMatch(/Nothing was run/);
    expect(arm.runs).toBe(0);
  });

  it("with --yes runs the steps once and prints each outcome (exit 0)", async () => {
    const arm = new ReflexArm(loadConfig());
    const cli = io(await serve(arm));
    const code = await recoverCommand(["--ros", "--operator", "ada", "--yes", "--json"], cli);
    expect(code).toBe(0);
    expect(arm.runs).toBe(1);
    expect(JSON.parse(cli.out())).toMatchObject({ ran: true, steps: [{ outcome: "done" }, { outcome: "done" }] });
  });

  it("--joint with --ros, or --yes without it, is a usage error", async () => {
    const cli = io("http://127.0.0.1:9");
    await expect(recoverCommand(["--ros", "--joint", "elbow", "--operator", "ada"], cli)).rejects.toThrow(/--joint/);
    await expect(recoverCommand(["--yes", "--operator", "ada"], cli)).rejects.toThrow(/--yes goes with --ros/);
  });
});
