import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { motionsEnded, readEffects } from "../../firmware-sim/readEffects.js";
import { startServeRig, type ServeRig } from "../../support/serveRig.js";
import { CLI, runCli, SIM } from "./processes.js";

// A stop request always stops, and a halted bridge says so: real processes
// (dist/), firmware-sim over TCP — its effects log is the ground truth of what
// moved — and `armbridge serve` on the default arm whose move_joints on
// wrist_1 waits for an operator's approval. Motions take 2.5 s, so a halt
// lands while one is under way.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping halt end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "halt-always-stops-token";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
/** Approval decisions are the operator's: the API token agents hold cannot make them. */
const OPERATOR_TOKEN = "halt-always-stops-operator";
const operatorAuth = { authorization: `Bearer ${OPERATOR_TOKEN}`, "content-type": "application/json" };

interface Output {
  status: string;
  error_code?: string;
  message: string;
  action_id?: string;
  output?: Record<string, unknown>;
}
interface HaltAnswer {
  halted: boolean;
  halt: {
    halt_id: string;
    axes: string[] | null;
    operator: string | null;
    source: string;
    note: string | null;
    who: string;
  };
  message: string;
  problems?: { code: string; message: string }[];
}

describe.skipIf(!built)(
  "a stop request always stops; a halt is seen and ends what waited (serve + firmware-sim; needs dist: npm run build)",
  () => {
    let rig: ServeRig | undefined;
    let effectsLog: string;
    let url: string;
    let target = 0.5;
    const env = (): NodeJS.ProcessEnv => ({ ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: TOKEN });

    beforeAll(async () => {
      rig = await startServeRig({
        name: "armbridge-halt-stops-e2e-",
        simArgs: ["--seed", "7", "--motion-time", "fixed:2500"],
        config: (raw) => ({ ...raw, approval: { move_joints: { joints: ["wrist_1"] } } }),
        token: TOKEN,
        operatorToken: OPERATOR_TOKEN,
      });
      ({ effectsLog, url } = rig);
    });

    afterAll(async () => {
      await rig?.close();
    });

    // Each test leaves the bridge released and the arm at rest.
    afterEach(async () => {
      await fetch(`${url}/v1/halt/release`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ operator: "cleanup" }),
      });
      await motionsEnded(effectsLog, 10_000);
    });

    const ending = (actionId: string): string | undefined =>
      readEffects(effectsLog).find((e) => e.event === "motion_end" && e.action_id === actionId)?.outcome;

    async function until<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = probe();
        if (hit !== undefined) return hit;
        if (Date.now() > deadline) throw new Error("timed out");
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    async function calls(batch: { id: string; name: string; args: unknown }[]): Promise<Output[]> {
      const r = await fetch(`${url}/v1/calls`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ calls: batch, deadline_ms: 60_000 }),
      });
      const j = (await r.json()) as { responses: { response: { output?: Output; error?: Output } }[] };
      return j.responses.map((x) => x.response.output ?? x.response.error!);
    }

    /** A shoulder_pan motion under way (its effects-log start seen): the call's answer, and its action id. */
    async function motionUnderWay(id: string): Promise<{ answer: Promise<Output>; actionId: string }> {
      const before = new Set(readEffects(effectsLog).map((e) => e.action_id));
      target = -target;
      const answer = calls([{ id, name: "move_joints", args: { positions: { shoulder_pan: target } } }]).then(
        (r) => r[0]!,
      );
      const actionId = await until(
        () =>
          readEffects(effectsLog).find(
            (e) => e.event === "motion_start" && e.action_id !== null && !before.has(e.action_id),
          )?.action_id ?? undefined,
      );
      return { answer, actionId };
    }

    async function rawHalt(
      body: string,
      contentType = "application/json",
    ): Promise<{ status: number; json: HaltAnswer }> {
      const r = await fetch(`${url}/v1/halt`, {
        method: "POST",
        headers: { ...auth, "content-type": contentType },
        body,
      });
      return { status: r.status, json: (await r.json()) as HaltAnswer };
    }

    it.each([
      [
        "a joint the arm lacks beside one it has",
        JSON.stringify({ operator: "h4", joints: ["wrist_3", "wirst_2"] }),
        "ARMB_ERR_AXIS_UNKNOWN",
      ],
      ["a 201-character operator name", JSON.stringify({ operator: "o".repeat(201) }), "ARMB_ERR_HTTP_BAD_REQUEST"],
      [
        "a 2,001-character note",
        JSON.stringify({ operator: "h4", note: "n".repeat(2001) }),
        "ARMB_ERR_HTTP_BAD_REQUEST",
      ],
      ["an unknown field", JSON.stringify({ operator: "h4", reason: "hand in the cell" }), "ARMB_ERR_HTTP_BAD_REQUEST"],
      [
        "a source nobody may claim (presence)",
        JSON.stringify({ operator: "h4", source: "presence" }),
        "ARMB_ERR_HTTP_BAD_REQUEST",
      ],
      ["a body that is not JSON", "{operator: h4", "ARMB_ERR_HTTP_BAD_REQUEST"],
    ])(
      "POST /v1/halt with %s halts every axis at once, latches, and reports the problem after",
      async (_what, body, code) => {
        const { answer, actionId } = await motionUnderWay(`bad-halt-${code}-${body.length}`);
        const r = await rawHalt(body);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ halted: true, halt: { axes: null } });
        expect(r.json.problems?.map((p) => p.code)).toContain(code);
        expect(r.json.halt.source).toBe("http");
        // The motion was cut short by the halt: the arm says stopped, not reached.
        expect(await until(() => ending(actionId))).toBe("stopped");
        expect((await answer).status).toBe("stopped");
        const refused = await calls([
          { id: `after-${actionId}`, name: "move_joints", args: { positions: { elbow: 0.2 } } },
        ]);
        expect(refused[0]).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
      },
      30_000,
    );

    it("a 201-character name and a 2,001-character note are kept cut to their limits", async () => {
      const r = await rawHalt(JSON.stringify({ operator: "o".repeat(201), note: "n".repeat(2001) }));
      expect(r.json.halted).toBe(true);
      expect(r.json.halt.operator).toBe("o".repeat(200));
      expect(r.json.halt.note).toBe("n".repeat(2000));
    });

    it("over MCP, stop naming a joint the arm lacks halts every axis and says what was wrong", async () => {
      const client = new Client({ name: "halt-e2e", version: "1.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      try {
        const { answer, actionId } = await motionUnderWay("mcp-running");
        const r = await client.callTool({ name: "stop", arguments: { joints: ["wrist_3", "wirst_2"] } });
        expect(r.isError).toBeFalsy();
        expect(r.structuredContent).toMatchObject({
          status: "done",
          error_code: "ARMB_ERR_ARGS_INVALID",
          output: { halted: true, axes: expect.arrayContaining(["shoulder_pan", "wrist_3"]) },
        });
        expect(await until(() => ending(actionId))).toBe("stopped");
        expect((await answer).status).toBe("stopped");
      } finally {
        await client.close();
      }
    }, 30_000);

    it("`armbridge halt` with a flag it does not know still halts (every axis), then says what was wrong and exits 2", async () => {
      const { actionId } = await motionUnderWay("cli-running");
      const halt = await runCli(["halt", "--operator", "Ada", "--jiont", "wrist_3"], env());
      expect(halt.code, halt.stderr).toBe(2);
      expect(halt.stderr).toContain("ARMB_ERR_CLI_USAGE");
      expect(JSON.parse(halt.stdout)).toMatchObject({
        halted: true,
        halt: { source: "cli", operator: "Ada", axes: null },
      });
      expect(await until(() => ending(actionId))).toBe("stopped");
    }, 30_000);

    it("halted: get_arm_state and `armbridge status` say by whom, since when, and that motions are refused until an operator releases it", async () => {
      const free = (await calls([{ id: "state-free", name: "get_arm_state", args: {} }]))[0]!;
      expect(free.message).not.toMatch(/HALTED/);
      expect(free.output).toMatchObject({ halted: false, halt: null });

      const halt = await runCli(["halt", "--operator", "Ada", "--note", "hand in the cell"], env());
      expect(halt.code, halt.stderr).toBe(0);
      const { halt: row } = JSON.parse(halt.stdout) as HaltAnswer;

      const seen = (await calls([{ id: "state-halted", name: "get_arm_state", args: {} }]))[0]!;
      expect(seen.status).toBe("done");
      expect(seen.message).toMatch(/^The bridge is HALTED: the operator Ada \(cli\) halted it at \d{4}-\d\d-\d\dT/);
      expect(seen.message).toContain("refused until an operator releases");
      expect(seen.output).toMatchObject({
        halted: true,
        halt: { halt_id: row.halt_id, by: "the operator Ada (cli)", note: "hand in the cell" },
      });

      const status = await runCli(["status", "--json"], env());
      expect(status.code, status.stderr).toBe(0);
      const record = JSON.parse(status.stdout) as {
        halted: boolean;
        halt: { who: string; halt_id: string };
        message: string;
        link: { state: string };
      };
      expect(record).toMatchObject({
        halted: true,
        halt: { who: "the operator Ada (cli)", halt_id: row.halt_id },
        link: { state: "connected" },
      });
      expect(record.message).toMatch(/^The bridge is HALTED: the operator Ada \(cli\)/);

      expect((await runCli(["release", "--operator", "Ada"], env())).code).toBe(0);
      const after = JSON.parse((await runCli(["status", "--json"], env())).stdout) as {
        halted: boolean;
        halt: unknown;
      };
      expect(after).toMatchObject({ halted: false, halt: null });
    }, 30_000);

    it("a HALT declines every pending approval, saying why; approved after the release, the old request runs nothing", async () => {
      const startsBefore = readEffects(effectsLog).filter(
        (e) => e.event === "motion_start" && e.joints.includes("wrist_1"),
      ).length;
      const waiting = calls([
        { id: "gated-before-halt", name: "move_joints", args: { positions: { wrist_1: 0.4 } } },
      ]).then((r) => r[0]!);
      let approvals: { id: string; call_id: string }[] = [];
      for (let i = 0; i < 500 && approvals.length === 0; i++) {
        approvals = (
          (await (await fetch(`${url}/v1/approvals`, { headers: auth })).json()) as {
            approvals: { id: string; call_id: string }[];
          }
        ).approvals;
        if (approvals.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(approvals).toEqual([expect.objectContaining({ call_id: "gated-before-halt" })]);

      const halt = await rawHalt(JSON.stringify({ operator: "Ada" }));
      expect(halt.json.halted).toBe(true);
      // The waiting call is answered at once: declined by the halt, nothing sent.
      const answered = await waiting;
      expect(answered).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_DECLINED" });
      expect(answered.message).toContain(halt.json.halt.halt_id);
      expect(
        ((await (await fetch(`${url}/v1/approvals`, { headers: auth })).json()) as { approvals: unknown[] }).approvals,
      ).toEqual([]);

      await fetch(`${url}/v1/halt/release`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ operator: "Ada" }),
      });
      const late = await fetch(`${url}/v1/approvals/${approvals[0]!.id}/approve`, {
        method: "POST",
        headers: operatorAuth,
        body: JSON.stringify({ operator: "Ada" }),
      });
      expect(late.status).toBe(409);
      expect(((await late.json()) as { error: { code: string } }).error.code).toBe("ARMB_ERR_APPROVAL_DECIDED");
      await new Promise((r) => setTimeout(r, 300));
      expect(
        readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes("wrist_1")),
      ).toHaveLength(startsBefore);
    }, 30_000);

    it("cancelling one call of a batch ends that call alone, saying it was cancelled; the others run", async () => {
      const before = readEffects(effectsLog).filter((e) => e.event === "motion_start").length;
      const batch = calls([
        { id: "batch-x", name: "move_joints", args: { positions: { elbow: 0.3 } } },
        { id: "batch-a", name: "move_joints", args: { positions: { elbow: 0.5 } } },
        { id: "batch-b", name: "move_joints", args: { positions: { elbow: 0.1 } } },
      ]);
      // x is moving; a and b queue behind it for the elbow.
      await until(() =>
        readEffects(effectsLog).filter((e) => e.event === "motion_start").length > before ? true : undefined,
      );
      const cancel = await fetch(`${url}/v1/calls/cancel`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ ids: ["batch-a"] }),
      });
      expect(await cancel.json()).toEqual({ cancelled: ["batch-a"], not_waiting: [] });
      const [x, a, b] = await batch;
      expect(a).toMatchObject({ status: "skipped", error_code: "ARMB_ERR_CALL_ENDED" });
      expect(a!.message).toContain("cancelled by its caller");
      expect(x).toMatchObject({ status: "done" });
      expect(b).toMatchObject({ status: "done" });
      // What the arm did: x's and b's motions, each to its target; nothing for a.
      const moved = readEffects(effectsLog)
        .filter((e) => e.event === "motion_start")
        .slice(before);
      expect(moved.map((e) => e.action_id)).toEqual([x!.action_id, b!.action_id]);
      expect(moved.map((e) => Number(e.to?.elbow?.toFixed(3)))).toEqual([0.3, 0.1]);
      expect([ending(x!.action_id!), ending(b!.action_id!)]).toEqual(["reached", "reached"]);
    }, 30_000);
  },
);
