import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGoogleGenAI } from "../../../src/surfaces/gemini/GeminiModelClient.js";
import { UNARY_BLOCKING_NOTE } from "../../../src/surfaces/gemini/geminiTools.js";
import { runLiveAgent } from "../../../src/surfaces/gemini/runLiveAgent.js";
import { ScriptedGeminiServer, type ClientMessage } from "../../fixtures/gemini/ScriptedGeminiServer.js";
import {
  motionIntervals,
  overlapped,
  overlapsOnSharedJoints,
  startSimBridge,
  type SimBridge,
} from "../../fixtures/gemini/simBridge.js";

type Responses = {
  functionResponses: {
    id: string;
    name: string;
    response: { output?: { status: string; settled_by: string; timed_out: boolean } };
  }[];
};

describe("Live mode against a local BidiGenerateContent server", () => {
  let server: ScriptedGeminiServer;
  let sb: SimBridge;
  beforeEach(async () => {
    server = await ScriptedGeminiServer.start();
    sb = await startSimBridge();
  });
  afterEach(async () => {
    await server.close();
    await sb.close();
  });

  it("connects on the SDK's BidiGenerateContent path with the tools, executes toolCalls and answers with sendToolResponse ids", async () => {
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({
        toolCall: {
          functionCalls: [
            { id: "fc_1", name: "move_joints", args: { positions: { shoulder_pan: 0.3 } } },
            { name: "get_arm_state", args: {} },
          ],
        },
      });
      await conn.next("toolResponse");
      conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: "Moved the pan " }] } } });
      conn.send({
        serverContent: { modelTurn: { role: "model", parts: [{ text: "to 0.3 rad." }] }, turnComplete: true },
      });
    };
    const transcriptPath = join(sb.dir, "live.jsonl");
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: createGoogleGenAI({ apiKey: "test-key", baseUrl: server.baseUrl, apiVersion: "v1beta" }),
      model: "gemini-live-test",
      instruction: "pan a little",
      transcriptPath,
      deadlineMs: 20_000,
    });

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    expect(result.text).toBe("Moved the pan to 0.3 rad.");
    // The SDK builds `${new URL(baseUrl) as ws:}` + `/ws/google...`, so the path starts with "//" (as on the real service).
    // URL: {baseUrl as ws}/ws/google.ai.generativelanguage.{apiVersion}.GenerativeService.BidiGenerateContent?key=KEY
    expect(server.wsPaths).toHaveLength(1);
    expect(server.wsPaths[0]!.replace(/^\/+/, "/")).toBe(
      "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=test-key",
    );
    const conn = server.connections[0]!;
    const setup = conn.setup.setup as {
      model: string;
      tools: {
        functionDeclarations: {
          name: string;
          description: string;
          behavior?: string;
          parametersJsonSchema?: unknown;
        }[];
      }[];
    };
    expect(setup.model).toBe("models/gemini-live-test");
    const decls = setup.tools[0]!.functionDeclarations;
    expect(decls.find((d) => d.name === "move_joints")).toMatchObject({
      behavior: "BLOCKING",
      parametersJsonSchema: { type: "object" },
    });
    expect(decls.find((d) => d.name === "get_arm_state")?.behavior).toBeUndefined();
    // Every motion is BLOCKING on Live, and the unary-only wording is not added.
    const motions = sb.bridge.registry
      .declarations()
      .filter((d) => d.behavior === "BLOCKING")
      .map((d) => d.name);
    expect(
      decls
        .filter((d) => d.behavior === "BLOCKING")
        .map((d) => d.name)
        .sort(),
    ).toEqual([...motions].sort());
    for (const d of decls) expect(d.description.includes(UNARY_BLOCKING_NOTE)).toBe(false);
    const content = conn.received.find((m) => "clientContent" in m)!.clientContent as {
      turns: { role: string; parts: { text: string }[] }[];
      turnComplete: boolean;
    };
    expect(content).toEqual({ turns: [{ role: "user", parts: [{ text: "pan a little" }] }], turnComplete: true });

    const toolResponses = conn.received.filter((m) => "toolResponse" in m).map((m) => m.toolResponse as Responses);
    expect(toolResponses).toHaveLength(1);
    const [moved, state] = toolResponses[0]!.functionResponses;
    expect(moved).toMatchObject({ id: "fc_1", name: "move_joints", response: { output: { status: "done" } } });
    // A call without an id gets one, and its response carries it.
    expect(state!.name).toBe("get_arm_state");
    expect(state!.id).toMatch(/^armb_[0-9a-f]+$/);
    expect(result.responses.map((r) => r.id)).toEqual(["fc_1", state!.id]);

    const types = readFileSync(transcriptPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(
      expect.arrayContaining(["run_started", "tool_call", "call_event", "tool_response", "model_turn", "run_ended"]),
    );
  });

  it("toolCallCancellation ends our wait only: the motion completes once, is settled by observation, and is not answered", async () => {
    let startedSlow: () => void = () => undefined;
    const slowStarted = new Promise<void>((resolve) => (startedSlow = resolve));
    const off = sb.bridge.onEvent((e) => {
      if (e.type === "started" && e.callId === "slow") startedSlow();
    });
    let afterCancel: ClientMessage | undefined;
    let note: ClientMessage | undefined;
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({
        toolCall: {
          functionCalls: [
            { id: "slow", name: "move_joints", args: { positions: { shoulder_pan: 0.8 }, speed: 0.2 } },
            { id: "quick", name: "move_joints", args: { positions: { wrist_3: 0.2 } } },
          ],
        },
      });
      await slowStarted;
      conn.send({ toolCallCancellation: { ids: ["slow"] } });
      afterCancel = await conn.next("toolResponse");
      conn.send({
        serverContent: {
          modelTurn: { role: "model", parts: [{ text: "Stopped waiting for the pan." }] },
          turnComplete: true,
        },
      });
      // The model dropped "slow", but its motion ran: once it settles, the bridge tells the model in a user turn.
      note = await conn.next("clientContent");
      conn.send({
        serverContent: {
          modelTurn: { role: "model", parts: [{ text: "Understood, the pan reached 0.8." }] },
          turnComplete: true,
        },
      });
    };
    const transcriptPath = join(sb.dir, "cancel.jsonl");
    const lines: string[] = [];
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: createGoogleGenAI({ apiKey: "k", baseUrl: server.baseUrl, apiVersion: "v1beta" }),
      model: "gemini-live-test",
      instruction: "pan and twist",
      transcriptPath,
      deadlineMs: 20_000,
      onProgress: (line) => lines.push(line),
    });
    off();

    expect(server.scriptErrors).toEqual([]);
    expect(result.ended).toBe("answered");
    // Only the call still awaited is answered; the cancelled id never goes back.
    expect((afterCancel!.toolResponse as Responses).functionResponses.map((r) => r.id)).toEqual(["quick"]);
    const everyAnsweredId = server.connections[0]!.received.filter((m) => "toolResponse" in m).flatMap((m) =>
      (m.toolResponse as Responses).functionResponses.map((r) => r.id),
    );
    expect(everyAnsweredId).not.toContain("slow");

    // Ground truth: the cancelled motion started once and ran to its target.
    const row = sb.bridge.ledger.findByCallId("slow")!;
    const motion = motionIntervals(sb.effects()).get(row.actionId)!;
    expect(motion.starts).toBe(1);
    expect(sb.effects().find((e) => e.event === "motion_end" && e.action_id === row.actionId)?.outcome).toBe("reached");
    // Settled by observation as after any timeout, never re-sent.
    expect(row).toMatchObject({ state: "done", settledBy: "observation", timedOut: true });
    const transcript = readFileSync(transcriptPath, "utf8")
      .trim()
      .split("\n")
      .map(
        (l) => JSON.parse(l) as { type: string; response?: { id: string; response: { output: { status: string } } } },
      );
    const late = transcript.find((t) => t.type === "cancelled_settled");
    expect(late?.response).toMatchObject({
      id: "slow",
      response: { output: { status: "done", settled_by: "observation" } },
    });
    expect(lines.some((l) => l.includes("server cancelled slow"))).toBe(true);
    // The model is told what its cancelled call did, after it settled and when the model was idle.
    const told = note!.clientContent as { turns: { role: string; parts: { text: string }[] }[]; turnComplete: boolean };
    expect(told.turnComplete).toBe(true);
    expect(told.turns[0]!.role).toBe("user");
    expect(told.turns[0]!.parts[0]!.text).toContain(`call slow move_joints`);
    expect(told.turns[0]!.parts[0]!.text).toContain(`done (${row.actionId})`);
    expect(result.text).toBe("Understood, the pan reached 0.8.");
  });

  it("calls of one toolCall sharing a joint queue; disjoint ones run together", async () => {
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({
        toolCall: {
          functionCalls: [
            { id: "e1", name: "move_joints", args: { positions: { elbow: 1.5 } } },
            { id: "e2", name: "move_joints", args: { positions: { elbow: 0.6, wrist_1: -0.2 } } },
            { id: "g1", name: "set_gripper", args: { position: 0.2 } },
          ],
        },
      });
      await conn.next("toolResponse");
      conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: "ok" }] }, turnComplete: true } });
    };
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: createGoogleGenAI({ apiKey: "k", baseUrl: server.baseUrl }),
      model: "m",
      instruction: "x",
      deadlineMs: 20_000,
    });
    expect(result.ended).toBe("answered");
    expect(result.responses.map((r) => r.id)).toEqual(["e1", "e2", "g1"]);
    const effects = sb.effects();
    const action = (id: string): string => sb.bridge.ledger.findByCallId(id)!.actionId;
    expect(overlapsOnSharedJoints(effects)).toEqual([]);
    expect(motionIntervals(effects).get(action("e1"))!.end!).toBeLessThanOrEqual(
      motionIntervals(effects).get(action("e2"))!.start,
    );
    expect(overlapped(effects, action("e1"), action("g1"))).toBe(true);
  });

  it("a picture goes back inside its function response (FunctionResponse.parts), its bytes out of the JSON", async () => {
    let answer: ClientMessage | undefined;
    server.liveScript = async (conn) => {
      await conn.next("clientContent");
      conn.send({
        toolCall: { functionCalls: [{ id: "look", name: "get_camera_image", args: { camera: "overhead" } }] },
      });
      answer = await conn.next("toolResponse");
      conn.send({
        serverContent: { modelTurn: { role: "model", parts: [{ text: "I see three blocks." }] }, turnComplete: true },
      });
    };
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: createGoogleGenAI({ apiKey: "k", baseUrl: server.baseUrl }),
      model: "m",
      instruction: "look",
      deadlineMs: 20_000,
    });
    expect(result.ended).toBe("answered");
    type Answer = {
      functionResponses: {
        id: string;
        parts?: { inlineData: { mimeType: string; data: string } }[];
        response: { output: { status: string; images: Record<string, unknown>[] } };
      }[];
    };
    const [r] = (answer!.toolResponse as Answer).functionResponses;
    expect(r).toMatchObject({ id: "look", response: { output: { status: "done" } } });
    expect(r!.parts).toHaveLength(1);
    expect(r!.parts![0]!.inlineData.mimeType).toBe("image/jpeg");
    expect(Buffer.from(r!.parts![0]!.inlineData.data, "base64").subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(r!.response.output.images[0]).toMatchObject({ camera: "overhead", width: 640, height: 480 });
    expect(r!.response.output.images[0]).not.toHaveProperty("data");
  });
});
