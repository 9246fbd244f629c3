import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecutorEvent } from "../../../src/executor/ExecutorEvent.js";
import { createGoogleGenAI } from "../../../src/surfaces/gemini/GeminiModelClient.js";
import { runLiveAgent } from "../../../src/surfaces/gemini/runLiveAgent.js";
import { reconnectScenario } from "../../fixtures/gemini/reconnectScenario.js";
import {
  ScriptedGeminiServer,
  type ClientMessage,
  type LiveConnection,
} from "../../fixtures/gemini/ScriptedGeminiServer.js";
import { motionIntervals, startSimBridge, type Effect, type SimBridge } from "../../fixtures/gemini/simBridge.js";

type Output = { status: string; action_id?: string; joined_call_id?: string; message: string; settled_by: string };
type Responses = { functionResponses: { id: string; name: string; response: { output?: Output; error?: Output } }[] };
type Content = { turns: { role: string; parts: { text?: string }[] }[]; turnComplete: boolean };
type Line = { type: string } & Record<string, unknown>;

const PAN = { positions: { shoulder_pan: 0.8 }, speed: 0.2 };
const PAN_AGAIN = { speed: 0.2, positions: { shoulder_pan: 0.8 } };

const toolResponses = (conn: LiveConnection): Responses[] =>
  conn.received.filter((m) => "toolResponse" in m).map((m) => m.toolResponse as Responses);
const clientContents = (conn: LiveConnection): Content[] =>
  conn.received.filter((m) => "clientContent" in m).map((m) => m.clientContent as Content);
const text = (conn: LiveConnection, words: string): void =>
  conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: words }] }, turnComplete: true } });
/** Model text within a turn: the model has read what we sent before it. */
const say = (conn: LiveConnection, words: string): void =>
  conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: words }] } } });
const panStarts = (effects: readonly Effect[]): Effect[] =>
  effects.filter((e) => e.event === "motion_start" && e.joints.includes("shoulder_pan"));
const transcript = (path: string): Line[] =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
const setupOf = (conn: LiveConnection): Record<string, unknown> => conn.setup.setup as Record<string, unknown>;

/**
 * Live sessions across connections, against a local server that behaves as
 * the Live API documents: `sessionResumptionUpdate {newHandle, resumable}`,
 * `resumable: false` while a function call is open, `goAway {timeLeft}`
 * before it closes. The effects log says what physically moved.
 */
describe("Live resumption: the run goes on across connections, and no motion happens twice", () => {
  let server: ScriptedGeminiServer;
  let sb: SimBridge;
  const waiters: { match: (e: ExecutorEvent) => boolean; resolve: () => void }[] = [];
  let off: () => void = () => undefined;
  const when = (match: (e: ExecutorEvent) => boolean): Promise<void> =>
    new Promise((resolve) => waiters.push({ match, resolve }));
  const startedCall = (id: string): Promise<void> => when((e) => e.type === "started" && e.callId === id);
  beforeEach(async () => {
    server = await ScriptedGeminiServer.start();
    sb = await startSimBridge();
    off = sb.bridge.onEvent((e) => {
      for (const w of waiters.splice(0))
        if (w.match(e)) w.resolve();
        else waiters.push(w);
    });
  });
  afterEach(async () => {
    off();
    waiters.length = 0;
    await server.close();
    await sb.close();
  });
  const ai = (): ReturnType<typeof createGoogleGenAI> =>
    createGoogleGenAI({ apiKey: "k", baseUrl: server.baseUrl, apiVersion: "v1beta" });

  it("asks for resumption and sliding-window compression in every setup, offering the newest resumable handle", async () => {
    const scenario = reconnectScenario({ reconnects: 1, started: startedCall });
    server.liveScript = scenario.script;
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan",
      deadlineMs: 30_000,
    });
    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    const [first, second] = server.connections;
    expect(setupOf(first!)).toMatchObject({ sessionResumption: {}, contextWindowCompression: { slidingWindow: {} } });
    expect(first!.offeredHandle).toBeUndefined();
    expect(setupOf(second!)).toMatchObject({ sessionResumption: { handle: scenario.offered[0]!.expected } });
  });

  for (const style of ["go_away", "drop"] as const) {
    it(`${style === "go_away" ? "goAway mid-motion, then the server closes" : "the socket drops mid-motion, no goAway"}: resumed from the pre-call handle, the repeat under a new id joins, the arm moved once, the run answers`, async () => {
      let resumedWith: string | undefined;
      let joinedAnswer: ClientMessage | undefined;
      server.liveScript = async (conn) => {
        if (server.connections.length === 1) {
          await conn.next("clientContent");
          say(conn, "Panning to 0.8.");
          conn.send({ sessionResumptionUpdate: { newHandle: "handle-before-the-call", resumable: true } });
          // The model calls a function: the Live API is not resumable while it runs.
          conn.send({ sessionResumptionUpdate: { resumable: false } });
          conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
          await startedCall("fc1");
          if (style === "go_away") {
            conn.send({ goAway: { timeLeft: "30s" } });
            conn.close(1001, "going away");
          } else conn.terminate();
          return;
        }
        resumedWith = conn.offeredHandle;
        // The resumed state predates fc1: the model asks for the same motion again, with a new id.
        conn.send({ sessionResumptionUpdate: { resumable: false } });
        conn.send({ toolCall: { functionCalls: [{ id: "fc1-again", name: "move_joints", args: PAN_AGAIN }] } });
        joinedAnswer = await conn.next("toolResponse");
        text(conn, "The pan is at 0.8.");
      };
      const transcriptPath = join(sb.dir, `${style}.jsonl`);
      const lines: string[] = [];
      const result = await runLiveAgent({
        bridge: sb.bridge,
        ai: ai(),
        model: "m",
        instruction: "pan to 0.8",
        transcriptPath,
        deadlineMs: 30_000,
        onProgress: (l) => lines.push(l),
      });

      expect(server.scriptErrors).toEqual([]);
      expect(result).toMatchObject({ ended: "answered", text: "The pan is at 0.8." });
      expect(server.connections).toHaveLength(2);
      expect(resumedWith).toBe("handle-before-the-call");
      // Ground truth: one motion of the pan, fc1's, run to its target; the repeat never reached the ledger.
      const first = sb.bridge.ledger.findByCallId("fc1")!;
      expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId]);
      expect(motionIntervals(sb.effects()).get(first.actionId)!.starts).toBe(1);
      expect(sb.effects().find((e) => e.event === "motion_end" && e.action_id === first.actionId)?.outcome).toBe(
        "reached",
      );
      expect(sb.bridge.ledger.findByCallId("fc1-again")).toBeUndefined();
      // The resumed model got fc1's outcome under its own id; fc1 itself was never answered on any connection.
      const joined = (joinedAnswer!.toolResponse as Responses).functionResponses[0]!;
      expect(joined).toMatchObject({
        id: "fc1-again",
        response: { output: { status: "done", action_id: first.actionId, joined_call_id: "fc1" } },
      });
      expect(joined.response.output!.message).toMatch(
        /^Not run again: this call repeats call fc1 .*connection to the model was lost/,
      );
      expect(
        server.connections.flatMap((c) => toolResponses(c)).flatMap((r) => r.functionResponses.map((f) => f.id)),
      ).toEqual(["fc1-again"]);
      // Nothing was re-sent: the handle already covered the instruction.
      expect(clientContents(server.connections[1]!)).toEqual([]);
      // The transcript and the progress lines say why, how long, which handle.
      const t = transcript(transcriptPath);
      const lost = t.find((l) => l.type === "connection_lost")!;
      expect(lost).toMatchObject({
        cause: style === "go_away" ? "go_away" : "closed",
        undeliveredCallIds: ["fc1"],
        handle: "handle-before-the-call",
      });
      if (style === "drop") expect(lost.detail).toContain("1006");
      const back = t.find((l) => l.type === "reconnected")!;
      expect(back).toMatchObject({ mode: "resumed", cause: lost.cause, handle: "handle-before-the-call", attempts: 1 });
      expect(back.durationMs).toEqual(expect.any(Number));
      if (style === "go_away") expect(t.find((l) => l.type === "go_away")).toMatchObject({ timeLeftMs: 30_000 });
      expect(lines.some((l) => l.startsWith("Live connection lost") && l.includes("fc1"))).toBe(true);
      expect(lines.some((l) => /^Live session resumed from handle .* ms after the old connection ended/.test(l))).toBe(
        true,
      );
      expect(result.metrics).toMatchObject({ reconnects: 1, resumed: 1, fresh_sessions: 0, joined_repeats: 1 });
    });
  }

  it("a result delivered after the newest handle is lost with its connection: the repeat joins, nothing moves twice, and the instruction is not sent again", async () => {
    let told: Content | undefined;
    let joinedAnswer: ClientMessage | undefined;
    server.liveScript = async (conn) => {
      if (server.connections.length === 1) {
        // A handle right after setup: the state it represents holds neither the instruction nor anything after it.
        conn.send({ sessionResumptionUpdate: { newHandle: "handle-at-setup", resumable: true } });
        await conn.next("clientContent");
        conn.send({ sessionResumptionUpdate: { resumable: false } });
        conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
        await conn.next("toolResponse");
        // Dropped before any handle covers the instruction or the response.
        conn.terminate();
        return;
      }
      told = (await conn.next("clientContent")).clientContent as Content;
      conn.send({ toolCall: { functionCalls: [{ id: "fc2", name: "move_joints", args: PAN_AGAIN }] } });
      joinedAnswer = await conn.next("toolResponse");
      text(conn, "Already there.");
    };
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan to 0.8",
      deadlineMs: 30_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    expect(server.connections[1]!.offeredHandle).toBe("handle-at-setup");
    // The session may hold the instruction or not; a second copy could be carried out twice, so it is told instead.
    expect(clientContents(server.connections[1]!)).toHaveLength(1);
    expect(told!.turns[0]!.parts[0]!.text).not.toContain("pan to 0.8");
    expect(told!.turns[0]!.parts[0]!.text).toContain("it is not sent again");
    const first = sb.bridge.ledger.findByCallId("fc1")!;
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId]);
    expect((joinedAnswer!.toolResponse as Responses).functionResponses[0]).toMatchObject({
      id: "fc2",
      response: { output: { status: "done", joined_call_id: "fc1" } },
    });
  });

  it("a handle that arrives right after a result, before the model said a word, does not count the result as received", async () => {
    let joinedAnswer: ClientMessage | undefined;
    server.liveScript = async (conn) => {
      if (server.connections.length === 1) {
        await conn.next("clientContent");
        conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
        await conn.next("toolResponse");
        // Made before the server read the response, it may not hold it: the client cannot tell, so it assumes not.
        conn.send({ sessionResumptionUpdate: { newHandle: "handle-racing-the-result", resumable: true } });
        conn.terminate();
        return;
      }
      conn.send({ toolCall: { functionCalls: [{ id: "fc2", name: "move_joints", args: PAN_AGAIN }] } });
      joinedAnswer = await conn.next("toolResponse");
      text(conn, "At 0.8.");
    };
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan to 0.8",
      deadlineMs: 30_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    expect(server.connections[1]!.offeredHandle).toBe("handle-racing-the-result");
    // The instruction was answered (by the call) before that handle came: held, not sent again.
    expect(clientContents(server.connections[1]!)).toEqual([]);
    const first = sb.bridge.ledger.findByCallId("fc1")!;
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId]);
    expect((joinedAnswer!.toolResponse as Responses).functionResponses[0]).toMatchObject({
      id: "fc2",
      response: { output: { status: "done", joined_call_id: "fc1" } },
    });
  });

  it("a resume the server refuses (expired handle) starts a fresh session told from the ledger what the arm did; a repeat of the motion still under way joins it", async () => {
    let opening: Content | undefined;
    let joinedAnswer: ClientMessage | undefined;
    server.setupReply = (_setup, index) =>
      index === 1 ? { close: 1007, reason: "session resumption handle is invalid or expired" } : "complete";
    server.liveScript = async (conn) => {
      if (server.connections.length === 1) {
        await conn.next("clientContent");
        conn.send({ sessionResumptionUpdate: { newHandle: "handle-soon-expired", resumable: true } });
        conn.send({ toolCall: { functionCalls: [{ id: "g1", name: "set_gripper", args: { position: 0.3 } }] } });
        await conn.next("toolResponse");
        conn.send({ sessionResumptionUpdate: { newHandle: "handle-expired", resumable: true } });
        conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
        await startedCall("fc1");
        conn.terminate();
        return;
      }
      expect(conn.offeredHandle).toBeUndefined();
      opening = (await conn.next("clientContent")).clientContent as Content;
      // A new session knows only what it was told: it asks for the pan again.
      conn.send({ toolCall: { functionCalls: [{ id: "fc9", name: "move_joints", args: PAN_AGAIN }] } });
      joinedAnswer = await conn.next("toolResponse");
      text(conn, "Gripper at 0.3 and pan at 0.8.");
    };
    const transcriptPath = join(sb.dir, "fresh.jsonl");
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "grip then pan",
      transcriptPath,
      deadlineMs: 30_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    expect(server.wsPaths).toHaveLength(3);
    const gripper = sb.bridge.ledger.findByCallId("g1")!;
    const pan = sb.bridge.ledger.findByCallId("fc1")!;
    const said = opening!.turns.map((t) => t.parts.map((p) => p.text ?? "").join("")).join("\n");
    expect(opening!.turns[0]!.parts[0]!.text).toBe("grip then pan");
    expect(said).toContain("could not be resumed");
    expect(said).toContain(`call g1 set_gripper {"position":0.3}, action ${gripper.actionId}: done`);
    expect(said).toContain(`call fc1 move_joints ${JSON.stringify(PAN)}, action ${pan.actionId}: still under way`);
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([pan.actionId]);
    expect((joinedAnswer!.toolResponse as Responses).functionResponses[0]).toMatchObject({
      id: "fc9",
      response: { output: { status: "done", joined_call_id: "fc1" } },
    });
    const t = transcript(transcriptPath);
    expect(t.find((l) => l.type === "resume_refused")).toMatchObject({ handle: "handle-expired" });
    const back = t.find((l) => l.type === "reconnected")!;
    expect(back.mode).toBe("fresh");
    expect(back.handle).toBeUndefined();
    expect(result.metrics).toMatchObject({ reconnects: 1, fresh_sessions: 1, joined_repeats: 1 });
  });

  it("after goAway the client leaves by itself once the call is answered and a handle covers it, before timeLeft ends: nothing is undelivered", async () => {
    server.liveScript = async (conn) => {
      if (server.connections.length === 1) {
        await conn.next("clientContent");
        say(conn, "Panning.");
        conn.send({ sessionResumptionUpdate: { newHandle: "h1", resumable: true } });
        conn.send({ sessionResumptionUpdate: { resumable: false } });
        conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
        await startedCall("fc1");
        conn.send({ goAway: { timeLeft: "20s" } });
        await conn.next("toolResponse");
        say(conn, "The pan is there.");
        conn.send({ sessionResumptionUpdate: { newHandle: "h2", resumable: true } });
        // The server would close at the end of timeLeft; the client must be gone well before.
        return;
      }
      text(conn, "Done.");
    };
    const transcriptPath = join(sb.dir, "leave.jsonl");
    const t0 = Date.now();
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan",
      transcriptPath,
      deadlineMs: 30_000,
    });
    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(server.connections[1]!.offeredHandle).toBe("h2");
    const t = transcript(transcriptPath);
    expect(t.find((l) => l.type === "connection_lost")).toMatchObject({ cause: "go_away", undeliveredCallIds: [] });
    expect(result.responses.map((r) => r.id)).toEqual(["fc1"]);
  });

  it(
    "survives 20 reconnects in a row, each in the middle of a motion: every motion ran once, none lost, every repeat joined",
    { timeout: 120_000 },
    async () => {
      const n = 20;
      const scenario = reconnectScenario({ reconnects: n, started: startedCall });
      server.liveScript = scenario.script;
      const result = await runLiveAgent({
        bridge: sb.bridge,
        ai: ai(),
        model: "m",
        instruction: "pan back and forth",
        deadlineMs: 110_000,
        maxTurns: 100,
      });

      expect(server.scriptErrors).toEqual([]);
      expect(result).toMatchObject({ ended: "answered", text: `All ${n} motions done.` });
      expect(server.connections).toHaveLength(n + 1);
      expect(scenario.offered.map((o) => o.got)).toEqual(scenario.offered.map((o) => o.expected));
      const effects = sb.effects();
      const intervals = motionIntervals(effects);
      const actions = Array.from({ length: n }, (_, i) => sb.bridge.ledger.findByCallId(scenario.firstId(i))!);
      // None lost: each motion has its ledger row, done, one start and a reached end in the effects log.
      for (const row of actions) {
        expect(row.state).toBe("done");
        expect(intervals.get(row.actionId)!.starts).toBe(1);
        expect(effects.find((e) => e.event === "motion_end" && e.action_id === row.actionId)?.outcome).toBe("reached");
      }
      // None repeated: the pan moved exactly n times, once per first call; no repeat reached the ledger.
      expect(panStarts(effects).map((e) => e.action_id)).toEqual(actions.map((r) => r.actionId));
      for (let i = 0; i < n; i++) expect(sb.bridge.ledger.findByCallId(scenario.repeatId(i))).toBeUndefined();
      scenario.answers.forEach((a, i) => {
        expect((a.toolResponse as Responses).functionResponses[0]).toMatchObject({
          id: scenario.repeatId(i),
          response: { output: { status: "done", joined_call_id: scenario.firstId(i) } },
        });
      });
      expect(result.metrics).toMatchObject({ reconnects: n, resumed: n, fresh_sessions: 0, joined_repeats: n });
      expect(result.metrics.reconnect_ms!.count).toBe(n);
    },
  );

  it("while reconnects keep failing the run deadline still ends the run, after the motion under way has settled", async () => {
    server.setupReply = (_setup, index) => (index === 0 ? "complete" : { close: 1013, reason: "try again later" });
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
      await startedCall("fc1");
      conn.terminate();
    };
    const transcriptPath = join(sb.dir, "deadline.jsonl");
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan",
      transcriptPath,
      deadlineMs: 3_000,
      reconnect: {
        attempts: 1000,
        backoff: { initialMs: 100, maxMs: 400 },
        setupTimeoutMs: 5_000,
        goAwayMarginMs: 1_000,
      },
    });
    expect(result.ended).toBe("deadline");
    // Returned only once the motion it had started was settled, and it moved once.
    const row = sb.bridge.ledger.findByCallId("fc1")!;
    expect(row.state).toBe("done");
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([row.actionId]);
    const failed = transcript(transcriptPath).filter((l) => l.type === "reconnect_failed");
    expect(failed.length).toBeGreaterThan(1);
    expect(failed[0]!.detail).toContain("1013");
  });

  it("a setup the server refuses outright (bad key or model) ends the run with ARMB_ERR_GEMINI_API at once", async () => {
    server.setupReply = () => ({ close: 1008, reason: "API key not valid" });
    await expect(
      runLiveAgent({ bridge: sb.bridge, ai: ai(), model: "m", instruction: "x", deadlineMs: 20_000 }),
    ).rejects.toMatchObject({ code: "ARMB_ERR_GEMINI_API" });
    expect(server.wsPaths).toHaveLength(1);
  });

  it("a server that drops every connection before saying anything is retried with back-off, then ARMB_ERR_GEMINI_API", async () => {
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.terminate();
    };
    const error = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "x",
      deadlineMs: 20_000,
      reconnect: { attempts: 3, backoff: { initialMs: 20, maxMs: 50 }, setupTimeoutMs: 5_000, goAwayMarginMs: 1_000 },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ARMB_ERR_GEMINI_API" });
    expect((error as Error).message).toContain("check the network");
    expect(server.wsPaths.length).toBe(3);
  });
});
