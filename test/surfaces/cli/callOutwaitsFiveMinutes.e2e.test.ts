import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeRig, type ServeRig } from "../../support/serveRig.js";
import { CLI, runCli, SIM } from "./processes.js";

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
  let rig: ServeRig | undefined;
  let url: string;

  beforeAll(async () => {
    // The effects log the rig keeps is not read here: the call's answer and the ledger say what happened.
    rig = await startServeRig({
      name: "armbridge-long-wait-",
      simArgs: ["--seed", "5", "--motion-time", "fixed:150"],
      config: (raw) => ({ ...raw, approval: { move_joints: { joints: ["wrist_1"] } }, approval_timeout_s: 1200 }),
      token: TOKEN,
      operatorToken: OPERATOR_TOKEN,
    });
    url = rig.url;
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
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
