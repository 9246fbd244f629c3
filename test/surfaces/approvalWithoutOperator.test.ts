import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { Bridge } from "../../src/bridge/Bridge.js";
import { DEFAULT_CONFIG_PATH } from "../../src/config/loadConfig.js";
import { checkApprovalAnswerable } from "../../src/executor/operator/approvalRules.js";
import { run as runAgent } from "../../src/surfaces/cli/agent/agentCommand.js";
import { run as runMcp } from "../../src/surfaces/cli/mcp/mcpCommand.js";
import { testConfig } from "../support/testConfig.js";

/**
 * An approval gate needs someone who can answer it. A bridge started with no
 * operator surface says so at start and refuses a config that gates calls —
 * before the ledger or the arm is touched — instead of letting every gated
 * call expire. The embedded `mcp` and `agent` serve a console of their own,
 * so their gates are answerable there and they start (the approval itself is
 * answered in test/surfaces/gemini/agentCommand.test.ts).
 */
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The default arm's config with `approval` set, written where a command can load it. */
function gatedConfigFile(approval: Record<string, unknown>): string {
  dir = mkdtempSync(join(tmpdir(), "armb-approval-surface-"));
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as { arm: { urdf: string } } & Record<string, unknown>;
  raw.arm.urdf = join(dirname(DEFAULT_CONFIG_PATH), raw.arm.urdf);
  const path = join(dir, "gated.yaml");
  writeFileSync(path, stringify({ ...raw, approval }));
  return path;
}

async function capture(
  run: (
    argv: string[],
    io: { stdout: PassThrough; stderr: PassThrough; env: NodeJS.ProcessEnv; stdin?: PassThrough },
  ) => Promise<number>,
  argv: string[],
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = "";
  stderr.on("data", (c: Buffer) => (err += c.toString()));
  const code = await run(argv, {
    stdout,
    stderr,
    env: { ARMBRIDGE_LOG_LEVEL: "silent", GEMINI_API_KEY: "k" },
    stdin: new PassThrough(),
  });
  return { code, stderr: err };
}

describe("approval gates with no operator surface", () => {
  it("the check depends on whether an operator surface exists, not on a mode: gates refused without one, allowed with one", () => {
    const gated = testConfig({ approval: { move_joints: "always" } });
    const byJoint = testConfig({ approval: { move_joints: { joints: ["wrist_1"] } } });
    const ungated = testConfig({ approval: { move_joints: "never" } });
    const none = { kind: "none", why: "no console here" } as const;
    expect(() => checkApprovalAnswerable(gated, none)).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_UNANSWERABLE" }),
    );
    expect(() => checkApprovalAnswerable(byJoint, none)).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_UNANSWERABLE" }),
    );
    expect(() => checkApprovalAnswerable(ungated, none)).not.toThrow();
    expect(() => checkApprovalAnswerable(gated, { kind: "present" })).not.toThrow();
  });

  it("Bridge.start with no operator surface refuses a gated config before opening the ledger or the arm", async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-approval-surface-"));
    const dataDir = join(dir, "data");
    const start = Bridge.start({
      config: testConfig({ approval: { move_joints: "always" } }),
      transport: { kind: "serial", link: "tcp://127.0.0.1:1" },
      dataDir,
      operatorSurface: { kind: "none", why: "a test" },
    });
    await expect(start).rejects.toMatchObject({ code: "ARMB_ERR_APPROVAL_UNANSWERABLE" });
    expect(existsSync(dataDir)).toBe(false);
  });

  it("armbridge mcp embedded serves a console, so a gated config is not refused as unanswerable (it goes on to the arm)", async () => {
    const config = gatedConfigFile({ move_joints: "always" });
    const r = await capture(runMcp, [
      "--serial",
      "tcp://127.0.0.1:1",
      "--config",
      config,
      "--data",
      join(dir!, "data"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("ARMB_ERR_APPROVAL_UNANSWERABLE");
  });

  it("armbridge agent embedded serves a console, so a gated config is not refused as unanswerable (it goes on to the arm)", async () => {
    const config = gatedConfigFile({ set_gripper: "always" });
    const replay = `replay:${join(dirname(DEFAULT_CONFIG_PATH), "demo-session.jsonl")}`;
    const r = await capture(runAgent, [
      "wave",
      "--model",
      replay,
      "--serial",
      "tcp://127.0.0.1:1",
      "--config",
      config,
      "--data",
      join(dir!, "data"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("ARMB_ERR_APPROVAL_UNANSWERABLE");
  });
});
