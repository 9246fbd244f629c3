import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../../src/config/loadConfig.js";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "./processes.js";

// `armbridge call` (the built CLI, a real process) on a motion that waits for
// an operator's approval for longer than Node's fetch waits for an answer by
// default (undici: 300 s without headers). The operator approves after six
// minutes; the call must come back done, not fail on the client's side.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping the long approval wait: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "long-wait-token";
const OPERATOR_TOKEN = "long-wait-operator-token";
/** Past undici's 300 s headersTimeout, with a margin. */
const HOLD_MS = 6 * 60_000 + 15_000;

describe.skipIf(!built)("armbridge call held in an approval wait past five minutes (needs dist)", () => {
  let dir: string;
  let sim: ReadyProcess;
  let serve: ReadyProcess;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-long-wait-"));
    const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
    raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
    const configPath = join(dir, "arm.yaml");
    writeFileSync(
      configPath,
      stringify({ ...raw, approval: { move_joints: { joints: ["wrist_1"] } }, approval_timeout_s: 1200 }),
    );
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--seed", "5", "--motion-time", "fixed:150"]);
    serve = await startReady(
      CLI,
      [
        "serve",
        "--serial",
        String(sim.ready.link),
        "--config",
        configPath,
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--operator-token",
        OPERATOR_TOKEN,
        "--data",
        join(dir, "data"),
      ],
      { XDG_STATE_HOME: join(dir, "xdg") },
    );
    url = String(serve.ready.http);
  }, 60_000);

  afterAll(async () => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("comes back done once the operator approves after six minutes", async () => {
    const call = runCli(
      ["call", "move_joints", "--args", JSON.stringify({ positions: { wrist_1: 0.4 } }), "--deadline-ms", "1200000"],
      { ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: TOKEN },
    );
    let pending: { id: string }[] = [];
    while (pending.length === 0) {
      await sleep(50);
      const answer = await fetch(`${url}/v1/approvals`, { headers: { authorization: `Bearer ${TOKEN}` } });
      pending = ((await answer.json()) as { approvals: { id: string }[] }).approvals;
    }
    await sleep(HOLD_MS);
    const approved = await fetch(`${url}/v1/approvals/${pending[0]!.id}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ operator: "ana" }),
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    const result = await call;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ response: { output: { status: "done" } } });
  }, 480_000);
});
