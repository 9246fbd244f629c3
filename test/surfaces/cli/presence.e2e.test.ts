import { existsSync } from "node:fs";
import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../../firmware-sim/readEffects.js";
import { startServeRig, type ServeRig } from "../../support/serveRig.js";
import { CLI, SIM } from "./processes.js";

// Hold-to-run under a real serve on firmware-sim: what physically moved is read
// from the simulator's effects log, never taken from the bridge's answers.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping operator presence end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "presence-e2e-token";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const TIMEOUT_MS = 600;

interface Output {
  status: string;
  error_code?: string;
  blocked_by?: string[];
  message: string;
  action_id?: string;
  settled_by?: string;
}

describe.skipIf(!built)(
  "operator_presence (hold-to-run) under a real serve, judged by the simulator's effects log (needs dist: npm run build)",
  () => {
    let rig: ServeRig | undefined;
    let effectsLog: string;
    let url: string;
    /** The operator's token, as the console link serve printed carries it. */
    let operatorAuth: Record<string, string>;
    let beating: NodeJS.Timeout | undefined;

    beforeAll(async () => {
      rig = await startServeRig({
        name: "armbridge-presence-e2e-",
        simArgs: ["--seed", "7"],
        config: (raw) => ({
          ...raw,
          operator_presence: { required: true, timeout_ms: TIMEOUT_MS },
          timeouts_ms: { ...(raw.timeouts_ms ?? {}), move_joints: 30_000 },
        }),
        token: TOKEN,
      });
      ({ effectsLog, url } = rig);
      const operatorToken = decodeURIComponent(/#token=(.+)$/.exec(String(rig.serve.ready.console))?.[1] ?? "");
      expect(operatorToken).not.toBe("");
      expect(operatorToken).not.toBe(TOKEN);
      operatorAuth = { ...auth, authorization: `Bearer ${operatorToken}` };
    });

    afterEach(() => stopBeating());

    afterAll(async () => {
      stopBeating();
      await rig?.close();
    });

    function stopBeating(): void {
      clearInterval(beating);
      beating = undefined;
    }

    async function api<T>(
      method: "GET" | "POST",
      path: string,
      body?: unknown,
      headers: Record<string, string> = auth,
    ): Promise<{ status: number; json: T }> {
      const r = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, json: (await r.json()) as T };
    }

    /** The console's heartbeat (or leave), with the operator's token. */
    const beatAs = (body: unknown): Promise<{ status: number; json: unknown }> =>
      api("POST", "/v1/presence", body, operatorAuth);

    /** What an open console does: a heartbeat now and every timeout/4. */
    async function startBeating(session: string, operator: string | undefined): Promise<void> {
      const beat = (): Promise<unknown> => beatAs({ session, ...(operator === undefined ? {} : { operator }) });
      expect((await beatAs({ session, ...(operator === undefined ? {} : { operator }) })).status).toBe(200);
      beating = setInterval(() => void beat().catch(() => undefined), TIMEOUT_MS / 4);
    }

    function call(id: string, name: string, args: unknown): Promise<Output> {
      return fetch(`${url}/v1/calls`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ calls: [{ id, name, args }], deadline_ms: 60_000 }),
      })
        .then((r) => r.json() as Promise<{ responses: { response: { output?: Output; error?: Output } }[] }>)
        .then((j) => j.responses[0]!.response.output ?? j.responses[0]!.response.error!);
    }

    const starts = (): number => readEffects(effectsLog).filter((e) => e.event === "motion_start").length;

    it("without a console no motion is sent: blocked with ARMB_ERR_OPERATOR_ABSENT naming what is missing", async () => {
      const before = starts();
      const r = await call("no-console", "move_joints", { positions: { elbow: 0.3 } });
      expect(r).toMatchObject({
        status: "blocked",
        error_code: "ARMB_ERR_OPERATOR_ABSENT",
        blocked_by: ["operator_presence"],
      });
      expect(r.message).toMatch(/no operator console is open/);
      const p = await api<{ required: boolean; operator: string | null; missing: string | null }>(
        "GET",
        "/v1/presence",
      );
      expect(p.json).toMatchObject({ required: true, operator: null });
      expect(p.json.missing).toMatch(/no operator console/);
      await new Promise((res) => setTimeout(res, 300));
      expect(starts()).toBe(before);
    });

    it("a heartbeat with the API token (what an agent holds) is refused with a coded 403, and the next motion does not move the arm", async () => {
      const forged = await api<{ error: { code: string } }>("POST", "/v1/presence", {
        session: "agent-forged-0001",
        operator: "ana",
      });
      expect(forged.status).toBe(403);
      expect(forged.json.error.code).toBe("ARMB_ERR_HTTP_OPERATOR_ONLY");
      const p = await api<{ operator: string | null; consoles: unknown[] }>("GET", "/v1/presence");
      expect(p.json).toMatchObject({ operator: null, consoles: [] });
      const before = starts();
      const r = await call("after-forged-beat", "move_joints", { positions: { elbow: 0.35 } });
      expect(r).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_OPERATOR_ABSENT" });
      await new Promise((res) => setTimeout(res, 300));
      expect(starts()).toBe(before);
    });

    it("a console open without a name admits nothing either, and says the name is what is missing", async () => {
      await startBeating("unnamed-console-1", undefined);
      const before = starts();
      const r = await call("no-name", "move_joints", { positions: { elbow: 0.3 } });
      expect(r).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_OPERATOR_ABSENT" });
      expect(r.message).toMatch(/no operator has typed their name/);
      await new Promise((res) => setTimeout(res, 300));
      expect(starts()).toBe(before);
      stopBeating();
      await beatAs({ session: "unnamed-console-1", leaving: true });
    });

    it("with a heartbeating named operator a motion runs exactly once", async () => {
      await startBeating("named-console-1", "Ada");
      const state = await api<{ presence?: { operator: string | null; missing: string | null } }>("GET", "/v1/state");
      expect(state.json.presence).toMatchObject({ operator: "Ada", missing: null });
      const r = await call("with-ada", "move_joints", { positions: { elbow: 0.3 }, speed: 1 });
      expect(r.status).toBe("done");
      const mine = readEffects(effectsLog).filter((e) => e.action_id === r.action_id);
      expect(mine.filter((e) => e.event === "motion_start")).toHaveLength(1);
      expect(mine.find((e) => e.event === "motion_end")?.outcome).toBe("reached");
      stopBeating();
      await beatAs({ session: "named-console-1", leaving: true });
    });

    it("the heartbeat stopping mid-motion halts the arm: latched (source presence), the motion cut short, nothing after until released", async () => {
      await startBeating("named-console-2", "Ada");
      // Several seconds of motion: 3 rad of wrist_3 at 15 % speed.
      const slow = call("slow", "move_joints", { positions: { wrist_3: 3.0 }, speed: 0.15 });
      for (
        let i = 0;
        i < 200 && !readEffects(effectsLog).some((e) => e.event === "motion_start" && e.joints.includes("wrist_3"));
        i++
      )
        await new Promise((res) => setTimeout(res, 25));
      const start = readEffects(effectsLog).find((e) => e.event === "motion_start" && e.joints.includes("wrist_3"));
      expect(start, "the slow motion started").toBeDefined();
      // The console goes quiet (closed lid, lost network): no leave, just no more beats.
      stopBeating();
      const quietAt = Date.now();
      const halted = await slow;
      expect(halted.status).toBe("stopped");
      expect(Date.now() - quietAt).toBeLessThan(10_000);

      const state = await api<{
        halted: boolean;
        halt: { source: string; confirmed: boolean | null } | null;
        presence?: { operator: string | null };
      }>("GET", "/v1/state");
      expect(state.json).toMatchObject({ halted: true, halt: { source: "presence", confirmed: true } });
      expect(state.json.presence?.operator).toBeNull();

      // Ground truth: the motion ended short of its target, stopped by the halt.
      const end = readEffects(effectsLog).find((e) => e.event === "motion_end" && e.action_id === halted.action_id);
      expect(end?.outcome).toBe("stopped");
      expect(end?.to?.wrist_3).toBeLessThan(2.9);

      // Back at the console: still latched, nothing moves until an operator releases it by name.
      await startBeating("named-console-3", "Ada");
      const before = starts();
      const refused = await call("while-latched", "move_joints", { positions: { elbow: 0.4 } });
      expect(refused).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
      await new Promise((res) => setTimeout(res, 300));
      expect(starts()).toBe(before);
      const afterHalt = readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.t > (end?.t ?? 0));
      expect(afterHalt).toEqual([]);

      expect((await api("POST", "/v1/halt/release", { operator: "Ada" })).status).toBe(200);
      const again = await call("after-release", "move_joints", { positions: { elbow: 0.4 }, speed: 1 });
      expect(again.status).toBe("done");
      expect(starts()).toBe(before + 1);
    }, 60_000);

    it("the heartbeat route keeps the other routes' guards: no token, no presence", async () => {
      const r = await fetch(`${url}/v1/presence`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ session: "sneaky-session", operator: "Mallory" }),
      });
      expect(r.status).toBe(401);
      // fetch will not send another Host: a page that rebound its name to this address would.
      const hostile = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${url}/v1/presence`,
          { method: "POST", headers: { ...auth, host: "evil.example:80" } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ session: "sneaky-session", operator: "Mallory" }));
      });
      expect(hostile).toBe(421);
      const p = await api<{ consoles: { session: string }[] }>("GET", "/v1/presence");
      expect(p.json.consoles.map((c) => c.session)).not.toContain("sneaky-session");
    });
  },
);
