import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resultOf } from "../../../src/surfaces/toFunctionResponse.js";
import { ReplayModelClient } from "../../../src/surfaces/gemini/ReplayModelClient.js";
import { runAgent } from "../../../src/surfaces/gemini/runAgent.js";
import {
  motionIntervals,
  overlapped,
  overlapsOnSharedJoints,
  startSimBridge,
  type SimBridge,
} from "../../fixtures/gemini/simBridge.js";

const DEMO = join(import.meta.dirname, "../../../config/demo-session.jsonl");

function transcriptOf(path: string): { type: string; [k: string]: unknown }[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string });
}

describe("replay-driven agent sessions on firmware-sim", () => {
  let sb: SimBridge | undefined;
  afterEach(async () => {
    await sb?.close();
    sb = undefined;
  });

  it("the bundled demo session: disjoint calls overlap, shared-joint calls queue, a timeout settles by observation, a stall ends unknown", async () => {
    sb = await startSimBridge({ stallJoints: ["wrist_2"] });
    const transcriptPath = join(sb.dir, "transcript.jsonl");
    const lines: string[] = [];
    const result = await runAgent({
      bridge: sb.bridge,
      model: ReplayModelClient.fromFile(DEMO),
      instruction: "show what armbridge does",
      transcriptPath,
      deadlineMs: 60_000,
      onProgress: (l) => lines.push(l),
    });

    expect(result.ended).toBe("answered");
    expect(result.notes).toEqual([]);
    expect(result.turns).toBe(6);
    expect(result.responses.map((r) => r.id)).toEqual(["d1", "d2", "q1", "q2", "t1", "u1", "s1"]);
    const status = Object.fromEntries(result.responses.map((r) => [r.id, resultOf(r.response)]));
    expect(status.t1).toMatchObject({ status: "done", timed_out: true, settled_by: "observation" });
    expect(status.u1).toMatchObject({ status: "unknown", resources: ["joint:wrist_2"] });

    const effects = sb.effects();
    const intervals = motionIntervals(effects);
    for (const [actionId, m] of intervals) expect(m.starts, `motion_start count of ${actionId}`).toBe(1);
    expect(overlapsOnSharedJoints(effects)).toEqual([]);
    const action = (callId: string): string => sb!.bridge.ledger.findByCallId(callId)!.actionId;
    expect(overlapped(effects, action("d1"), action("d2"))).toBe(true);
    expect(intervals.get(action("q1"))!.end!).toBeLessThanOrEqual(intervals.get(action("q2"))!.start);
    expect(effects.find((e) => e.event === "motion_end" && e.action_id === action("u1"))?.outcome).toBe("stalled");
    expect([...sb.bridge.executor.quarantine.byResource().keys()]).toEqual(["joint:wrist_2"]);

    const transcript = transcriptOf(transcriptPath);
    expect(transcript.filter((t) => t.type === "model_turn")).toHaveLength(6);
    expect(transcript.filter((t) => t.type === "calls")).toHaveLength(5);
    const responded = transcript
      .filter((t) => t.type === "responses")
      .flatMap((t) => (t.responses as { id: string }[]).map((r) => r.id));
    expect(responded).toEqual(["d1", "d2", "q1", "q2", "t1", "u1", "s1"]);
    expect(transcript.at(-1)).toMatchObject({ type: "run_ended", ended: "answered" });
    // A transcript is itself a replay file of the same session.
    expect(ReplayModelClient.fromFile(transcriptPath).length).toBe(6);

    expect(lines.some((l) => l.startsWith("q2 move_joints: queued"))).toBe(true);
    expect(lines.some((l) => l.startsWith("t1 move_joints: wait for") && l.includes("timed out"))).toBe(true);
    expect(lines.some((l) => l.startsWith("u1 move_joints: UNKNOWN"))).toBe(true);
  });

  it("a call without an id gets one, and its response carries it", async () => {
    sb = await startSimBridge();
    const model = ReplayModelClient.fromText(
      ['{"calls":[{"name":"move_joints","args":{"positions":{"wrist_1":-0.3}}}]}', '{"text":"ok"}'].join("\n"),
    );
    const result = await runAgent({ bridge: sb.bridge, model, instruction: "x" });
    expect(result.ended).toBe("answered");
    expect(result.responses).toHaveLength(1);
    const id = result.responses[0]!.id;
    expect(id).toMatch(/^armb_[0-9a-f]{12}$/);
    expect(sb.bridge.ledger.findByCallId(id)?.state).toBe("done");
  });

  it("stops at max turns and says so", async () => {
    sb = await startSimBridge();
    const turn = (id: string, v: number): string =>
      JSON.stringify({ calls: [{ id, name: "move_joints", args: { positions: { wrist_3: v } } }] });
    const model = ReplayModelClient.fromText(
      [turn("m1", 0.1), turn("m2", 0.2), turn("m3", 0.3), '{"text":"never"}'].join("\n"),
    );
    const result = await runAgent({ bridge: sb.bridge, model, instruction: "x", maxTurns: 2 });
    expect(result).toMatchObject({ ended: "max_turns", turns: 2 });
    expect(result.responses.map((r) => r.id)).toEqual(["m1", "m2"]);
    expect(sb.bridge.ledger.findByCallId("m3")).toBeUndefined();
  });

  it("stops at the run deadline and says so; the motion under way is observed, not stopped", async () => {
    sb = await startSimBridge();
    const model = ReplayModelClient.fromText(
      [
        '{"calls":[{"id":"slow","name":"move_joints","args":{"positions":{"shoulder_pan":1.0},"speed":0.2}}]}',
        '{"text":"never"}',
      ].join("\n"),
    );
    const result = await runAgent({ bridge: sb.bridge, model, instruction: "x", deadlineMs: 300 });
    expect(result.ended).toBe("deadline");
    expect(resultOf(result.responses[0]!.response)).toMatchObject({
      status: "done",
      timed_out: true,
      settled_by: "observation",
    });
    const row = sb.bridge.ledger.findByCallId("slow")!;
    expect(motionIntervals(sb.effects()).get(row.actionId)?.starts).toBe(1);
  });

  it("asking for more turns than recorded is ARMB_ERR_GEMINI_REPLAY, and the transcript says so", async () => {
    sb = await startSimBridge();
    const transcriptPath = join(sb.dir, "t.jsonl");
    const model = ReplayModelClient.fromText('{"calls":[{"id":"a","name":"get_arm_state","args":{}}]}', "short.jsonl");
    await expect(runAgent({ bridge: sb.bridge, model, instruction: "x", transcriptPath })).rejects.toMatchObject({
      code: "ARMB_ERR_GEMINI_REPLAY",
    });
    expect(transcriptOf(transcriptPath).at(-1)).toMatchObject({
      type: "error",
      error: { code: "ARMB_ERR_GEMINI_REPLAY" },
    });
  });
});

describe("ReplayModelClient checks what the loop sends back", () => {
  const file = [
    '{"calls":[{"id":"c1","name":"move_joints","args":{"positions":{"elbow":1}}},{"id":"c2","name":"stop","args":{}}]}',
    '{"text":"ok"}',
  ].join("\n");
  const signal = new AbortController().signal;
  const ask = (client: ReplayModelClient, last: unknown) =>
    client.generate({
      contents: [{ role: "user", parts: [{ text: "x" }] }, last as never],
      tools: [],
      systemInstruction: "",
      signal,
    });

  it.each([
    [
      "a wrong id",
      [
        { id: "c1", name: "move_joints" },
        { id: "cX", name: "stop" },
      ],
    ],
    [
      "a wrong name",
      [
        { id: "c1", name: "move_joints" },
        { id: "c2", name: "move_joints" },
      ],
    ],
    ["a missing response", [{ id: "c1", name: "move_joints" }]],
    [
      "the wrong order",
      [
        { id: "c2", name: "stop" },
        { id: "c1", name: "move_joints" },
      ],
    ],
  ])("%s is ARMB_ERR_GEMINI_REPLAY", async (_what, replies) => {
    const client = ReplayModelClient.fromText(file);
    await ask(client, undefined);
    const last = {
      role: "user",
      parts: replies.map((r) => ({ functionResponse: { ...r, response: { output: { status: "done" } } } })),
    };
    await expect(ask(client, last)).rejects.toMatchObject({ code: "ARMB_ERR_GEMINI_REPLAY" });
  });

  it("the right ids and names get the next turn", async () => {
    const client = ReplayModelClient.fromText(file);
    await ask(client, undefined);
    const last = {
      role: "user",
      parts: [
        { functionResponse: { id: "c1", name: "move_joints", response: { output: { status: "done" } } } },
        { functionResponse: { id: "c2", name: "stop", response: { output: { status: "done" } } } },
      ],
    };
    await expect(ask(client, last)).resolves.toMatchObject({ text: "ok", calls: [] });
  });

  it("a status other than the file's expect is reported, not fatal", async () => {
    const client = ReplayModelClient.fromText(
      ['{"calls":[{"id":"c1","name":"stop","args":{}}],"expect":{"c1":"done"}}', '{"text":"ok"}'].join("\n"),
    );
    await ask(client, undefined);
    await ask(client, {
      role: "user",
      parts: [{ functionResponse: { id: "c1", name: "stop", response: { output: { status: "failed" } } } }],
    });
    expect(client.expectationMisses()).toEqual(["call c1 (stop) ended failed, the script expects done"]);
  });

  it.each([
    ["not JSON", "{calls:", 1],
    ["neither calls nor text", '# header\n{"note":"x"}', 2],
    ["an unknown key", '{"text":"a","deadline":5}', 1],
    ["a call without a name", '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"a"}}]}}]}', 1],
    ["expect naming no call", '{"calls":[{"id":"a","name":"stop"}],"expect":{"b":"done"}}', 1],
    ["a bad status in expect", '{"calls":[{"id":"a","name":"stop"}],"expect":{"a":"fine"}}', 1],
    ["no turns at all", "# only a comment\n", 0],
  ])("a file with %s is ARMB_ERR_GEMINI_REPLAY naming the line", (_what, text, line) => {
    let error: unknown;
    try {
      ReplayModelClient.fromText(text, "bad.jsonl");
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "ARMB_ERR_GEMINI_REPLAY", details: { path: "bad.jsonl" } });
    if (line > 0)
      expect((error as { details: { reason: string } }).details.reason).toMatch(new RegExp(`^line ${line}:`));
  });

  it("reads all three line forms and skips comments and other transcript lines", () => {
    const client = ReplayModelClient.fromText(
      [
        "// comment",
        '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"a","name":"stop","args":{}}}]}}]}',
        '{"type":"run_started","model":"m"}',
        '{"type":"model_turn","turn":2,"content":{"role":"model","parts":[{"functionCall":{"id":"b","name":"stop"}}]},"deadline_ms":50}',
        '{"text":"bye"}',
      ].join("\n"),
    );
    expect(client.length).toBe(3);
  });

  it("a missing file is ARMB_ERR_GEMINI_REPLAY", () => {
    expect(() => ReplayModelClient.fromFile("/nonexistent/session.jsonl")).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_GEMINI_REPLAY" }),
    );
  });

  it("the bundled demo session parses", () => {
    expect(ReplayModelClient.fromFile(DEMO).length).toBe(6);
  });
});
