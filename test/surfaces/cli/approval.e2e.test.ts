import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../../firmware-sim/readEffects.js";
import { startServeRig, type ServeRig } from "../../support/serveRig.js";
import { CLI, runCli, SIM } from "./processes.js";

// Real processes (dist/): firmware-sim with an effects log — the ground truth of
// what moved — and `armbridge serve` on an arm config whose move_joints on
// wrist_1 and set_gripper need an operator's approval.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping approval end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "approval-e2e-token";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const OPERATOR_TOKEN = "approval-e2e-operator-token";
const asOperator = { ...auth, authorization: `Bearer ${OPERATOR_TOKEN}` };

interface Output {
  status: string;
  error_code?: string;
  message: string;
  action_id?: string;
}

describe.skipIf(!built)(
  "approval gate under a real serve, judged by the simulator's effects log (needs dist: npm run build)",
  () => {
    let rig: ServeRig | undefined;
    let effectsLog: string;
    let url: string;
    const env = (): NodeJS.ProcessEnv => ({
      ARMBRIDGE_URL: url,
      ARMBRIDGE_TOKEN: TOKEN,
      ARMBRIDGE_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });

    beforeAll(async () => {
      rig = await startServeRig({
        name: "armbridge-approval-e2e-",
        simArgs: ["--seed", "5", "--motion-time", "fixed:150"],
        config: (raw) => ({
          ...raw,
          approval: { move_joints: { joints: ["wrist_1"] }, set_gripper: "always" },
          approval_timeout_s: 3,
        }),
        token: TOKEN,
        operatorToken: OPERATOR_TOKEN,
      });
      ({ effectsLog, url } = rig);
    });

    afterAll(async () => {
      await rig?.close();
    });

    const starts = (joint: string): number =>
      readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes(joint)).length;

    function call(id: string, name: string, args: unknown): Promise<Output> {
      return fetch(`${url}/v1/calls`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ calls: [{ id, name, args }], deadline_ms: 30_000 }),
      })
        .then((r) => r.json() as Promise<{ responses: { response: { output?: Output; error?: Output } }[] }>)
        .then((j) => j.responses[0]!.response.output ?? j.responses[0]!.response.error!);
    }

    async function waitPending(
      n: number,
    ): Promise<{ id: string; call_id: string; tool: string; targets: Record<string, number> }[]> {
      for (let i = 0; i < 500; i++) {
        const r = (await (await fetch(`${url}/v1/approvals`, { headers: auth })).json()) as {
          approvals: { id: string; call_id: string; tool: string; targets: Record<string, number> }[];
        };
        if (r.approvals.length === n) return r.approvals;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new Error(`never ${n} pending approvals`);
    }

    it("approve from the CLI → the motion runs exactly once; a second approve is 409", async () => {
      const running = call("ap-1", "move_joints", { positions: { wrist_1: 0.5 } });
      const [req] = await waitPending(1);
      expect(req).toMatchObject({ call_id: "ap-1", tool: "move_joints", targets: { wrist_1: 0.5 } });
      const state = (await (await fetch(`${url}/v1/state`, { headers: auth })).json()) as { approvals_pending: number };
      expect(state.approvals_pending).toBe(1);
      const listed = await runCli(["approvals"], env());
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).approvals.map((a: { id: string }) => a.id)).toEqual([req!.id]);
      expect(starts("wrist_1")).toBe(0);

      const approved = await runCli(["approve", req!.id, "--operator", "ana", "--note", "area clear"], env());
      expect(approved.code, approved.stderr).toBe(0);
      expect(JSON.parse(approved.stdout)).toMatchObject({
        id: req!.id,
        decision: "approved",
        operator: "ana",
        note: "area clear",
      });
      const done = await running;
      expect(done.status).toBe("done");
      expect(starts("wrist_1")).toBe(1);
      // Who approved is in the ledger: the route, and `armbridge actions ID` (its JSON) beside the table.
      const row = (await (await fetch(`${url}/v1/actions/${done.action_id}`, { headers: auth })).json()) as {
        approval: unknown;
      };
      expect(row.approval).toEqual({ id: req!.id, operator: "ana", at: expect.any(Number), note: "area clear" });
      const shown = await runCli(["actions", done.action_id!], env());
      expect(JSON.parse(shown.stdout)).toMatchObject({
        action_id: done.action_id,
        approval: { id: req!.id, operator: "ana", note: "area clear" },
      });

      const twice = await runCli(["approve", req!.id, "--operator", "ana"], env());
      expect(twice.code).toBe(1);
      expect(twice.stderr).toContain("ARMB_ERR_APPROVAL_DECIDED");
      const unknown = await fetch(`${url}/v1/approvals/apr_nope/decline`, {
        method: "POST",
        headers: asOperator,
        body: JSON.stringify({ operator: "ana" }),
      });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("ARMB_ERR_APPROVAL_NOT_FOUND");
    });

    it("decline over HTTP → rejected, the model told who and why, nothing in the effects log or the ledger", async () => {
      const before = readEffects(effectsLog).length;
      const running = call("dc-1", "set_gripper", { position: 0.2 });
      const [req] = await waitPending(1);
      const res = await fetch(`${url}/v1/approvals/${req!.id}/decline`, {
        method: "POST",
        headers: asOperator,
        body: JSON.stringify({ operator: "ana", note: "holding a part" }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ decision: "declined", operator: "ana", note: "holding a part" });
      const out = await running;
      expect(out).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_DECLINED" });
      expect(out.message).toMatch(/^An operator \(ana\) declined this motion: holding a part\. Nothing was sent/);
      expect(readEffects(effectsLog).length).toBe(before);
      const actions = (await (await fetch(`${url}/v1/actions`, { headers: auth })).json()) as {
        actions: { call_id: string }[];
      };
      expect(actions.actions.map((a) => a.call_id)).not.toContain("dc-1");
    });

    it("no decision → expired after approval_timeout_s, rejected, nothing in the effects log", async () => {
      const before = readEffects(effectsLog).length;
      const out = await call("ex-1", "move_joints", { positions: { wrist_1: -0.3 } });
      expect(out).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_EXPIRED" });
      expect(out.message).toMatch(/^No operator approved within 3 s; nothing was sent/);
      expect(readEffects(effectsLog).length).toBe(before);
    });

    it("a bridge killed while a call waits leaves nothing to reconcile: the next start has no row, no unknown, no motion", async () => {
      const before = readEffects(effectsLog).length;
      const running = call("cr-1", "move_joints", { positions: { wrist_1: 0.9 } }).catch(() => undefined);
      await waitPending(1);
      await rig!.killServe();
      await running;
      await rig!.startServe();
      url = rig!.url;
      const actions = (await (await fetch(`${url}/v1/actions`, { headers: auth })).json()) as {
        actions: { call_id: string; approval: { operator: string } | null }[];
      };
      expect(actions.actions.map((a) => a.call_id)).not.toContain("cr-1");
      // The approval given before the restart is still on its row: the ledger kept it, not serve's memory.
      expect(actions.actions.find((a) => a.call_id === "ap-1")?.approval).toMatchObject({
        operator: "ana",
        note: "area clear",
      });
      const state = (await (await fetch(`${url}/v1/state`, { headers: auth })).json()) as {
        approvals_pending: number;
        pending_unknowns: unknown[];
      };
      expect(state).toMatchObject({ approvals_pending: 0, pending_unknowns: [] });
      expect(readEffects(effectsLog).length).toBe(before);
    });
  },
);
