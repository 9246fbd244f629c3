import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecutorEvent } from "../../../src/executor/ExecutorEvent.js";
import { createGoogleGenAI } from "../../../src/surfaces/gemini/GeminiModelClient.js";
import { runLiveAgent } from "../../../src/surfaces/gemini/runLiveAgent.js";
import {
  ScriptedGeminiServer,
  type ClientMessage,
  type LiveConnection,
} from "../../fixtures/gemini/ScriptedGeminiServer.js";
import { motionIntervals, startSimBridge, type Effect, type SimBridge } from "../../fixtures/gemini/simBridge.js";

type Output = { status: string; action_id?: string; joined_call_id?: string; message: string };
type Responses = { functionResponses: { id: string; name: string; response: { output?: Output; error?: Output } }[] };
type Content = { turns: { role: string; parts: { text?: string }[] }[]; turnComplete: boolean };
type Line = { type: string } & Record<string, unknown>;

const WRIST_FAR = { positions: { wrist_3: 1.3 } };
const WRIST_NEAR = { positions: { wrist_3: 0.7 } };
const PAN = { positions: { shoulder_pan: 0.8 }, speed: 0.2 };
const INSTRUCTION = "turn the wrist to 1.3, then to 0.7, then back to 1.3";

const answerOf = (m: ClientMessage): Output => {
  const r = (m.toolResponse as Responses).functionResponses[0]!.response;
  return (r.output ?? r.error)!;
};
const clientContents = (conn: LiveConnection): Content[] =>
  conn.received.filter((m) => "clientContent" in m).map((m) => m.clientContent as Content);
const textOf = (c: Content): string => c.turns.map((t) => t.parts.map((p) => p.text ?? "").join("")).join("\n");
const say = (conn: LiveConnection, words: string): void =>
  conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: words }] } } });
const answer = (conn: LiveConnection, words: string): void =>
  conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: words }] }, turnComplete: true } });
const call = (conn: LiveConnection, id: string, args: object): void => {
  // The Live API is not resumable while the model runs a function call.
  conn.send({ sessionResumptionUpdate: { resumable: false } });
  conn.send({ toolCall: { functionCalls: [{ id, name: "move_joints", args }] } });
};
const startsOf = (effects: readonly Effect[], joint: string): (string | null)[] =>
  effects.filter((e) => e.event === "motion_start" && e.joints.includes(joint)).map((e) => e.action_id);
const transcript = (path: string): Line[] =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);

/**
 * A Live model that loses its connection in the middle of motions, again and
 * again, and asks for targets the arm has held before: the simulator's
 * effects log says what moved. A repeat the resumed model sends before any
 * new request joins the motion whose result it never got; a request for an
 * old target after that is a new motion; a result the model read is never
 * announced as lost; the user's words are never sent twice to one session.
 */
describe("Live resumption: a repeat joins only a result the model never got, a new request always moves", () => {
  let server: ScriptedGeminiServer;
  let sb: SimBridge;
  const waiters: { id: string; resolve: () => void }[] = [];
  let off: () => void = () => undefined;
  const started = (id: string): Promise<void> => new Promise((resolve) => waiters.push({ id, resolve }));
  beforeEach(async () => {
    server = await ScriptedGeminiServer.start();
    sb = await startSimBridge();
    off = sb.bridge.onEvent((e: ExecutorEvent) => {
      if (e.type !== "started") return;
      for (const w of waiters.splice(0))
        if (w.id === e.callId) w.resolve();
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

  it("wrist to 1.3, dropped, repeated: joined; to 0.7, dropped, repeated: joined; to 1.3 again as a new request: the wrist moves, and its own repeat joins it", async () => {
    const answers = new Map<string, ClientMessage>();
    const reply = async (conn: LiveConnection, id: string): Promise<void> =>
      void answers.set(id, await conn.next("toolResponse"));
    server.liveScript = async (conn) => {
      switch (server.connections.length) {
        case 1:
          await conn.next("clientContent");
          say(conn, "Turning the wrist.");
          conn.send({ sessionResumptionUpdate: { newHandle: "h0", resumable: true } });
          call(conn, "r1-a", WRIST_FAR);
          await started("r1-a");
          conn.terminate();
          return;
        case 2:
          // Resumed from before r1-a: the model asks again under a new id, reads the joined result and goes straight on.
          call(conn, "r1-b", WRIST_FAR);
          await reply(conn, "r1-b");
          call(conn, "r2-a", WRIST_NEAR);
          await started("r2-a");
          conn.terminate();
          return;
        case 3:
          call(conn, "r2-b", WRIST_NEAR);
          await reply(conn, "r2-b");
          say(conn, "At 0.7. Back to 1.3 now.");
          conn.send({ sessionResumptionUpdate: { newHandle: "h2", resumable: true } });
          // A new request for a target the arm held before: it must move.
          call(conn, "r3-a", WRIST_FAR);
          // An answer instead of a start would be an old result for a new request: the assertions below say so.
          await Promise.race([started("r3-a"), conn.next("toolResponse")]);
          conn.send({ goAway: { timeLeft: "10s" } });
          conn.close(1001, "going away");
          return;
        default:
          call(conn, "r3-b", WRIST_FAR);
          await reply(conn, "r3-b");
          answer(conn, "The wrist is back at 1.3.");
      }
    };
    const transcriptPath = join(sb.dir, "wrist.jsonl");
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: INSTRUCTION,
      transcriptPath,
      deadlineMs: 20_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result).toMatchObject({ ended: "answered", text: "The wrist is back at 1.3." });
    const r1 = sb.bridge.ledger.findByCallId("r1-a")!;
    const r2 = sb.bridge.ledger.findByCallId("r2-a")!;
    const r3 = sb.bridge.ledger.findByCallId("r3-a");
    // Ground truth: one motion per request, none for a repeat, in the order asked, each to its target.
    expect(r3).toBeDefined();
    const effects = sb.effects();
    expect(startsOf(effects, "wrist_3")).toEqual([r1.actionId, r2.actionId, r3!.actionId]);
    for (const row of [r1, r2, r3!]) {
      expect(motionIntervals(effects).get(row.actionId)!.starts).toBe(1);
      expect(effects.find((e) => e.event === "motion_end" && e.action_id === row.actionId)?.outcome).toBe("reached");
    }
    for (const repeat of ["r1-b", "r2-b", "r3-b"]) expect(sb.bridge.ledger.findByCallId(repeat)).toBeUndefined();
    // Each repeat got its own motion's result; no request got an older one.
    expect(answerOf(answers.get("r1-b")!)).toMatchObject({
      status: "done",
      action_id: r1.actionId,
      joined_call_id: "r1-a",
    });
    expect(answerOf(answers.get("r2-b")!)).toMatchObject({
      status: "done",
      action_id: r2.actionId,
      joined_call_id: "r2-a",
    });
    expect(answerOf(answers.get("r3-b")!)).toMatchObject({
      status: "done",
      action_id: r3!.actionId,
      joined_call_id: "r3-a",
    });
    // A result the model read is never announced as lost again, and no note tells it a result it already had.
    const losses = transcript(transcriptPath).filter((l) => l.type === "connection_lost");
    expect(losses.map((l) => l.undeliveredCallIds)).toEqual([["r1-a"], ["r2-a"], ["r3-a"]]);
    expect(
      server.connections.flatMap((c) => clientContents(c)).some((c) => textOf(c).includes("never reached you")),
    ).toBe(false);
  });

  it("a resumed session is never sent the instruction again (the handle came after the server had it); a fresh one is sent it with the ledger's account of what the arm did", async () => {
    let opening: Content | undefined;
    let joined: ClientMessage | undefined;
    // The second resume is refused, as for an expired handle: a fresh session.
    server.setupReply = (_setup, index) =>
      index === 2 ? { close: 1007, reason: "session resumption handle is invalid or expired" } : "complete";
    server.liveScript = async (conn) => {
      switch (server.connections.length) {
        case 1:
          await conn.next("clientContent");
          // Issued once the server had the instruction, before the model said a word.
          conn.send({ sessionResumptionUpdate: { newHandle: "handle-after-the-instruction", resumable: true } });
          call(conn, "fc1", PAN);
          await started("fc1");
          conn.terminate();
          return;
        case 2:
          call(conn, "fc1-again", PAN);
          joined = await conn.next("toolResponse");
          say(conn, "The pan is at 0.8.");
          conn.terminate();
          return;
        default:
          expect(conn.offeredHandle).toBeUndefined();
          opening = (await conn.next("clientContent")).clientContent as Content;
          answer(conn, "Done: the pan is at 0.8.");
      }
    };
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan to 0.8",
      deadlineMs: 20_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    const [, resumed] = server.connections;
    expect(resumed!.offeredHandle).toBe("handle-after-the-instruction");
    // Whatever the resumed session was sent, the user's instruction was not among it.
    for (const c of clientContents(resumed!)) expect(textOf(c)).not.toContain("pan to 0.8");
    // It is told instead that it may lack the user's last message, so a model without it says so rather than guess.
    expect(clientContents(resumed!).map(textOf)).toEqual([expect.stringContaining("it is not sent again")]);
    const pan = sb.bridge.ledger.findByCallId("fc1")!;
    expect(startsOf(sb.effects(), "shoulder_pan")).toEqual([pan.actionId]);
    expect(answerOf(joined!)).toMatchObject({ status: "done", joined_call_id: "fc1" });
    // The fresh session knows nothing: it gets the instruction once, and what the arm already did from the ledger.
    expect(opening!.turns[0]!.parts[0]!.text).toBe("pan to 0.8");
    expect(textOf(opening!).split("pan to 0.8")).toHaveLength(2);
    expect(textOf(opening!)).toContain(`call fc1 move_joints ${JSON.stringify(PAN)}, action ${pan.actionId}: done`);
  });
});
