import { describe, expect, it } from "vitest";
import type { CallResult } from "../../../src/executor/calls/CallResult.js";
import type { ExecutorEvent } from "../../../src/executor/Executor.js";
import { SESSION_FINISHED_MARKER, SessionNarrator } from "../../../src/surfaces/demo/SessionNarrator.js";
import type { AgentEvent } from "../../../src/surfaces/gemini/AgentEvent.js";

// The narrator's claims come from event timing; a manual clock makes the
// timing exact, so these tests check the reasoning, not the machine's speed.
function harness() {
  let now = 1_000_000;
  const lines: string[] = [];
  const narrator = new SessionNarrator({
    write: (l) => lines.push(l),
    consoleUrl: "http://127.0.0.1:1/console#token=t",
    now: () => now,
  });
  const at = (ms: number): void => {
    now = 1_000_000 + ms;
  };
  const send = (event: AgentEvent): void => narrator.onAgentEvent("", event);
  const call = (e: ExecutorEvent): void => send({ type: "call", event: e });
  const turn = (n: number, ids: string[]): void =>
    send({
      type: "model_turn",
      turn: n,
      text: "",
      calls: ids.map((id) => ({ id, name: "move_joints", args: {}, idAssigned: false })),
    });
  const start = (id: string, resources: string[], budgetMs = 5000): void => {
    call({ type: "queued", callId: id, tool: "move_joints", resources });
    call({ type: "started", callId: id, tool: "move_joints", actionId: `act_${id}`, resources, budgetMs });
  };
  const settle = (id: string, result: CallResult): void =>
    call({ type: "settled", callId: id, tool: "move_joints", result, durationMs: 0 });
  const done = (
    id: string,
    extra: Partial<{ timed_out: boolean; settled_by: "completion" | "observation" }> = {},
  ): CallResult => ({
    status: "done",
    action_id: `act_${id}`,
    message: "ok",
    timed_out: extra.timed_out ?? false,
    settled_by: extra.settled_by ?? "completion",
  });
  return { narrator, lines, at, send, call, turn, start, settle, done };
}

describe("SessionNarrator", () => {
  it("finds disjoint calls that overlapped, and a shared joint served in order", () => {
    const h = harness();
    h.turn(1, ["a", "b"]);
    h.at(10);
    h.start("a", ["joint:shoulder_pan"]);
    h.at(12);
    h.start("b", ["joint:wrist_3"]);
    h.at(500);
    h.settle("b", h.done("b"));
    h.at(800);
    h.settle("a", h.done("a"));
    h.turn(2, ["c", "d"]);
    h.at(810);
    h.start("c", ["joint:elbow"]);
    h.call({ type: "queued", callId: "d", tool: "move_joints", resources: ["joint:elbow"] });
    h.at(1400);
    h.settle("c", h.done("c"));
    h.at(1403);
    h.call({
      type: "started",
      callId: "d",
      tool: "move_joints",
      actionId: "act_d",
      resources: ["joint:elbow"],
      budgetMs: 5000,
    });
    h.at(2000);
    h.settle("d", h.done("d"));
    expect(h.narrator.findings().parallel).toEqual({ a: "a", b: "b", overlapMs: 488 });
    expect(h.narrator.findings().queued).toEqual({ first: "c", second: "d", joints: ["joint:elbow"], gapMs: 3 });
    expect(h.lines).toContain("  +   810 ms  d    move_joints        waits: elbow is held by c");
  });

  it("does not call calls on disjoint joints parallel when one ended before the other began", () => {
    const h = harness();
    h.turn(1, ["a", "b"]);
    h.start("a", ["joint:shoulder_pan"]);
    h.at(100);
    h.settle("a", h.done("a"));
    h.start("b", ["joint:wrist_3"]);
    h.at(200);
    h.settle("b", h.done("b"));
    expect(h.narrator.findings().parallel).toBeUndefined();
  });

  it("flags two calls on a shared joint that overlapped, and does not count them as queued", () => {
    const h = harness();
    h.turn(1, ["a", "b"]);
    h.start("a", ["joint:elbow"]);
    h.at(50);
    h.start("b", ["joint:elbow"]);
    h.at(100);
    h.settle("a", h.done("a"));
    h.settle("b", h.done("b"));
    expect(h.narrator.findings().queued).toBeUndefined();
    expect(h.lines.some((l) => l.includes("should never happen"))).toBe(true);
  });

  it("tells a timeout settled by observation apart from one left unknown", () => {
    const h = harness();
    h.turn(1, ["t"]);
    h.start("t", ["joint:shoulder_lift"], 400);
    h.at(400);
    h.call({ type: "timed_out", callId: "t", tool: "move_joints", actionId: "act_t" });
    h.at(1300);
    h.settle("t", h.done("t", { timed_out: true, settled_by: "observation" }));
    h.turn(2, ["u"]);
    h.at(1310);
    h.start("u", ["joint:wrist_2"]);
    h.at(1700);
    h.settle("u", {
      status: "unknown",
      action_id: "act_u",
      resources: ["joint:wrist_2"],
      message: "could not be confirmed",
      timed_out: false,
      settled_by: "none",
    });
    h.send({ type: "ended", ended: "answered", text: "", turns: 2 });
    expect(h.narrator.findings().timeoutObserved).toEqual({
      call: "t",
      budgetMs: 400,
      observedAfterMs: 900,
      actionId: "act_t",
    });
    expect(h.narrator.findings().unknown).toEqual({ call: "u", actionId: "act_u", resources: ["joint:wrist_2"] });
    expect(h.lines).toContain(
      "  => t: wait timed out after 400 ms — the motion went on — observed reached at +1300 ms (900 ms after the timeout) -> done, nothing re-sent",
    );
    expect(h.lines).toContain("             ! confirm at http://127.0.0.1:1/console#token=t");
  });

  it("summarises with a box per claim and ends with the marker; an unknown already settled is said so", () => {
    const h = harness();
    h.turn(1, ["u"]);
    h.start("u", ["joint:wrist_2"]);
    h.settle("u", {
      status: "unknown",
      action_id: "act_u",
      resources: ["joint:wrist_2"],
      message: "m",
      timed_out: false,
      settled_by: "none",
    });
    h.narrator.summary(() => false);
    const tail = h.lines.slice(-6);
    expect(tail[0]).toBe("What this session showed:");
    expect(tail.slice(1, 4).every((l) => l.startsWith("  [ ]"))).toBe(true);
    expect(tail[4]).toMatch(
      /^ {2}\[x\] an unknown outcome awaits an operator: act_u \(u, wrist_2\) was already settled$/,
    );
    expect(tail[5]).toBe(SESSION_FINISHED_MARKER);
  });
});
