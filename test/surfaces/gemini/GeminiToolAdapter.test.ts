import { describe, expect, it } from "vitest";
import type { CallResponse, FunctionCall } from "../../../src/executor/calls/CallResult.js";
import type { ExecuteOptions } from "../../../src/executor/Executor.js";
import { GeminiToolAdapter, identifyCalls, type CallExecutor } from "../../../src/surfaces/gemini/GeminiToolAdapter.js";
import { geminiTools, UNARY_BLOCKING_NOTE } from "../../../src/surfaces/gemini/geminiTools.js";

/** Records each execute() and answers each call done, or rejected for a repeated id, as the executor does. */
class RecordingExecutor implements CallExecutor {
  readonly batches: { calls: readonly FunctionCall[]; options: ExecuteOptions | undefined }[] = [];
  async execute(calls: readonly FunctionCall[], options?: ExecuteOptions): Promise<CallResponse[]> {
    this.batches.push({ calls, options });
    const seen = new Set<string>();
    return calls.map((c) => {
      const id = c.id ?? "";
      const repeat = seen.has(id);
      seen.add(id);
      return {
        id,
        name: c.name,
        result: repeat
          ? {
              status: "rejected",
              error_code: "ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH",
              issues: [],
              message: "dup",
              timed_out: false,
              settled_by: "none",
            }
          : { status: "done", message: "ok", timed_out: options?.signal?.aborted ?? false, settled_by: "completion" },
      };
    });
  }
}

describe("GeminiToolAdapter", () => {
  it("sends one model turn to the executor in ONE execute, with the run deadline, and answers in call order", async () => {
    const executor = new RecordingExecutor();
    const calls = identifyCalls([
      { id: "a", name: "move_joints", args: { positions: { elbow: 1 } } },
      { id: "b", name: "stop", args: {} },
    ]);
    const responses = await new GeminiToolAdapter(executor).respond(calls, { deadlineMs: 1234 });
    expect(executor.batches).toHaveLength(1);
    expect(executor.batches[0]!.calls.map((c) => c.id)).toEqual(["a", "b"]);
    expect(executor.batches[0]!.options?.deadlineMs).toBe(1234);
    expect(responses).toEqual([
      { id: "a", name: "move_joints", response: { output: expect.objectContaining({ status: "done" }) } },
      { id: "b", name: "stop", response: { output: expect.objectContaining({ status: "done" }) } },
    ]);
  });

  it("puts rejections under error", async () => {
    const executor = new RecordingExecutor();
    const responses = await new GeminiToolAdapter(executor).respond(
      identifyCalls([
        { id: "x", name: "stop" },
        { id: "x", name: "stop" },
      ]),
      { deadlineMs: 10 },
    );
    expect(responses[1]!.response).toHaveProperty("error.status", "rejected");
  });

  it("gives calls without an id a fresh one and keeps given ids, repeats included", () => {
    const calls = identifyCalls([
      { name: "stop" },
      { id: "", name: "stop" },
      { id: "k", name: "stop" },
      { id: "k", name: "stop" },
    ]);
    expect(calls[0]!.id).toMatch(/^armb_[0-9a-f]{12}$/);
    expect(calls[1]!.id).toMatch(/^armb_[0-9a-f]{12}$/);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(calls.map((c) => c.idAssigned)).toEqual([true, true, false, false]);
    expect(calls.slice(2).map((c) => c.id)).toEqual(["k", "k"]);
  });

  it("Live: one signal per call, repeated ids executed together so the repeat is rejected", async () => {
    const executor = new RecordingExecutor();
    const controllers = new Map([
      ["a", new AbortController()],
      ["b", new AbortController()],
    ]);
    controllers.get("b")!.abort();
    const calls = identifyCalls([
      { id: "a", name: "stop" },
      { id: "b", name: "stop" },
      { id: "a", name: "stop" },
    ]);
    const responses = await Promise.all(
      new GeminiToolAdapter(executor).respondEach(calls, {
        deadlineMs: 50,
        signalFor: (id) => controllers.get(id)!.signal,
      }),
    );
    expect(executor.batches.map((b) => b.calls.map((c) => c.id))).toEqual([["a", "a"], ["b"]]);
    expect(responses.map((r) => [r.id, "output" in r.response ? "output" : "error"])).toEqual([
      ["a", "output"],
      ["b", "output"],
      ["a", "error"],
    ]);
    // Only b's wait was ended.
    expect(executor.batches.map((b) => b.options?.signal?.aborted)).toEqual([false, true]);
  });
});

describe("geminiTools", () => {
  const registry = {
    declarations: () => [
      { name: "move", description: "m", parametersJsonSchema: { type: "object" }, behavior: "BLOCKING" as const },
      { name: "read", description: "r", parametersJsonSchema: { type: "object" } },
    ],
  };
  it("Live (BidiGenerateContent): carries parametersJsonSchema and maps BLOCKING to the SDK's Behavior", () => {
    expect(geminiTools(registry, { endpoint: "bidiGenerateContent" })).toEqual([
      {
        functionDeclarations: [
          { name: "move", description: "m", parametersJsonSchema: { type: "object" }, behavior: "BLOCKING" },
          { name: "read", description: "r", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);
  });
  it("unary (generateContent): no behavior field; a blocking tool's description says it blocks", () => {
    expect(geminiTools(registry, { endpoint: "generateContent" })).toEqual([
      {
        functionDeclarations: [
          { name: "move", description: `m ${UNARY_BLOCKING_NOTE}`, parametersJsonSchema: { type: "object" } },
          { name: "read", description: "r", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);
  });
});
