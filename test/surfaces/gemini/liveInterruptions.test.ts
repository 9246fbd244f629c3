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

type Output = { status: string; action_id?: string; joined_call_id?: string; message: string; settled_by: string };
type Responses = { functionResponses: { id: string; name: string; response: { output?: Output; error?: Output } }[] };
type Content = { turns: { role: string; parts: { text: string }[] }[]; turnComplete: boolean };

const PAN = { positions: { shoulder_pan: 0.8 }, speed: 0.2 };
/** The same motion as the model may write it again: other key order, same values. */
const PAN_AGAIN = { speed: 0.2, positions: { shoulder_pan: 0.8 } };

const toolResponses = (conn: LiveConnection): Responses[] =>
  conn.received.filter((m) => "toolResponse" in m).map((m) => m.toolResponse as Responses);
const clientContents = (conn: LiveConnection): Content[] =>
  conn.received.filter((m) => "clientContent" in m).map((m) => m.clientContent as Content);
const text = (conn: LiveConnection, words: string): void =>
  conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: words }] }, turnComplete: true } });
const panStarts = (effects: readonly Effect[]): Effect[] =>
  effects.filter((e) => e.event === "motion_start" && e.joints.includes("shoulder_pan"));

/**
 * A user's turn that interrupts a BLOCKING motion on Live: Google's server
 * may drop the pending call without toolCallCancellation while the motion
 * commits, and the model may call the same motion again
 * (https://discuss.ai.google.dev/t/live-api-with-behavior-blocking-an-interrupting-turn-drops-the-pending-function-call-and-tool-call-cancellation-never-arrives/196216).
 * The local server scripts exactly that; the effects log judges what moved.
 */
describe("Live interruptions: a repeat of an undelivered motion joins it", () => {
  let server: ScriptedGeminiServer;
  let sb: SimBridge;
  const waiters: { match: (e: ExecutorEvent) => boolean; resolve: () => void }[] = [];
  let off: () => void = () => undefined;
  const when = (match: (e: ExecutorEvent) => boolean): Promise<void> =>
    new Promise((resolve) => waiters.push({ match, resolve }));
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

  it("a user turn sent mid-motion, no cancellation, the model calls it again with a new id: joined, the arm moved once", async () => {
    const started = when((e) => e.type === "started" && e.callId === "fc1");
    let joinedAnswer: ClientMessage | undefined;
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
      // The user's interrupting turn; as in the report, the server drops fc1 silently and the model repeats it.
      await conn.next("clientContent");
      conn.send({ toolCall: { functionCalls: [{ id: "fc2", name: "move_joints", args: PAN_AGAIN }] } });
      joinedAnswer = await conn.next("toolResponse");
      text(conn, "The pan is at 0.8.");
    };
    async function* userTurns(): AsyncGenerator<string> {
      await started;
      yield "Wait, is the arm moving?";
    }
    const lines: string[] = [];
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan to 0.8",
      userTurns: userTurns(),
      deadlineMs: 30_000,
      onProgress: (l) => lines.push(l),
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    const conn = server.connections[0]!;
    expect(clientContents(conn).map((c) => c.turns[0]!.parts[0]!.text)).toEqual([
      "pan to 0.8",
      "Wait, is the arm moving?",
    ]);
    // Ground truth: one motion of the pan, for fc1's action, run to its target.
    const first = sb.bridge.ledger.findByCallId("fc1")!;
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId]);
    expect(motionIntervals(sb.effects()).get(first.actionId)!.starts).toBe(1);
    expect(sb.effects().find((e) => e.event === "motion_end" && e.action_id === first.actionId)?.outcome).toBe(
      "reached",
    );
    expect(sb.bridge.ledger.findByCallId("fc2")).toBeUndefined();
    // fc1 is never answered (the session dropped it); fc2's answer is fc1's outcome, saying so.
    expect(toolResponses(conn).flatMap((r) => r.functionResponses.map((f) => f.id))).toEqual(["fc2"]);
    const joined = (joinedAnswer!.toolResponse as Responses).functionResponses[0]!;
    expect(joined.response.output).toMatchObject({ status: "done", action_id: first.actionId, joined_call_id: "fc1" });
    expect(joined.response.output!.message).toMatch(/^Not run again: this call repeats call fc1/);
    // Told by the joined result, so no note follows.
    expect(clientContents(conn)).toHaveLength(2);
    expect(lines.some((l) => l.includes("a turn interrupted fc1"))).toBe(true);
    expect(lines.some((l) => l.includes("fc2 move_joints repeats fc1"))).toBe(true);
  });

  it("serverContent.interrupted, and the repeat arrives after the missed motion settled but before the model was told: joined at once, nothing moves again", async () => {
    const started = when((e) => e.type === "started" && e.callId === "fc1");
    const settled = when((e) => e.type === "settled" && e.callId === "fc1");
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
      await started;
      // Barge-in, as when the user speaks: the server interrupts its own turn.
      conn.send({ serverContent: { interrupted: true } });
      await settled;
      conn.send({
        toolCall: {
          functionCalls: [
            { id: "fc2", name: "move_joints", args: PAN_AGAIN },
            { id: "g1", name: "set_gripper", args: { position: 0.3 } },
          ],
        },
      });
      await conn.next("toolResponse");
      text(conn, "Done.");
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
    const first = sb.bridge.ledger.findByCallId("fc1")!;
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId]);
    const answers = toolResponses(server.connections[0]!).flatMap((r) => r.functionResponses);
    expect(answers.map((a) => a.id)).toEqual(["fc2", "g1"]);
    expect(answers[0]!.response.output).toMatchObject({
      status: first.state,
      action_id: first.actionId,
      joined_call_id: "fc1",
    });
    // The other call of the same turn is a motion of its own, as usual.
    expect(answers[1]!.response.output).toMatchObject({ status: "done" });
    expect(answers[1]!.response.output!.joined_call_id).toBeUndefined();
    expect(clientContents(server.connections[0]!)).toHaveLength(1);
  });

  it("a missed motion the model did not repeat is told in a note once settled; asked again after that, it is a new motion", async () => {
    const started = when((e) => e.type === "started" && e.callId === "fc1");
    let note: Content | undefined;
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({ toolCall: { functionCalls: [{ id: "fc1", name: "move_joints", args: PAN }] } });
      await conn.next("clientContent");
      // The model answers the interrupting turn in words and does not repeat the motion.
      text(conn, "Sure, stopping to listen.");
      note = (await conn.next("clientContent")).clientContent as Content;
      // Knowing the outcome, the model asks for the same motion again: that is a new motion.
      conn.send({ toolCall: { functionCalls: [{ id: "fc3", name: "move_joints", args: PAN_AGAIN }] } });
      await conn.next("toolResponse");
      text(conn, "Moved again.");
    };
    async function* userTurns(): AsyncGenerator<string> {
      await started;
      yield "Hold on.";
    }
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: ai(),
      model: "m",
      instruction: "pan to 0.8",
      userTurns: userTurns(),
      deadlineMs: 30_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result).toMatchObject({ ended: "answered", text: "Moved again." });
    const first = sb.bridge.ledger.findByCallId("fc1")!;
    const again = sb.bridge.ledger.findByCallId("fc3")!;
    expect(note!.turnComplete).toBe(true);
    expect(note!.turns[0]!.role).toBe("user");
    expect(note!.turns[0]!.parts[0]!.text).toContain(`call fc1 move_joints ${JSON.stringify(PAN)}`);
    expect(note!.turns[0]!.parts[0]!.text).toContain(`${first.state} (${first.actionId})`);
    expect(again.actionId).not.toBe(first.actionId);
    expect(panStarts(sb.effects()).map((e) => e.action_id)).toEqual([first.actionId, again.actionId]);
    const answers = toolResponses(server.connections[0]!).flatMap((r) => r.functionResponses);
    expect(answers.map((a) => a.id)).toEqual(["fc3"]);
    expect(answers[0]!.response.output!.joined_call_id).toBeUndefined();
  });
});
