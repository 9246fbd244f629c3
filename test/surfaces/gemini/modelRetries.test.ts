import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GeminiModelClient } from "../../../src/surfaces/gemini/GeminiModelClient.js";
import { runAgent } from "../../../src/surfaces/gemini/runAgent.js";
import { httpReply, ScriptedGeminiServer, type ScriptedUnary } from "../../fixtures/gemini/ScriptedGeminiServer.js";
import { motionIntervals, startSimBridge, type SimBridge } from "../../fixtures/gemini/simBridge.js";

const modelTurn = (parts: unknown[]): ScriptedUnary => ({
  candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }],
});
/** Google's error body: google.rpc.Status with a RetryInfo detail. */
const exhausted = (retryDelay: string): ScriptedUnary =>
  httpReply({
    status: 429,
    headers: { "retry-after": String(Math.ceil(Number(retryDelay.replace("s", "")))) },
    body: {
      error: {
        code: 429,
        message: "You exceeded your current quota, please check your plan and billing details.",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }],
      },
    },
  });
const unavailable = httpReply({
  status: 503,
  body: { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
});
type Line = { type: string } & Record<string, unknown>;

describe("Unary model requests: transient failures are retried, tools never run twice", () => {
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
  const client = (retry?: ConstructorParameters<typeof GeminiModelClient>[0]["retry"]): GeminiModelClient =>
    new GeminiModelClient({ apiKey: "k", baseUrl: server.baseUrl, apiVersion: "v1beta", model: "gemini-test", retry });

  it("429 with Retry-After and RetryInfo twice, then a turn of calls: the run completes, each call moved once, the waits were honoured, the transcript shows the retries", async () => {
    server.unaryResponses = [
      exhausted("1s"),
      exhausted("1s"),
      modelTurn([
        { functionCall: { id: "c1", name: "move_joints", args: { positions: { wrist_3: 0.4 } } } },
        { functionCall: { id: "c2", name: "set_gripper", args: { position: 0.5 } } },
      ]),
      exhausted("1s"),
      modelTurn([{ text: "Both done." }]),
    ];
    const transcriptPath = join(sb.dir, "retries.jsonl");
    const lines: string[] = [];
    const result = await runAgent({
      bridge: sb.bridge,
      model: client(),
      instruction: "twist and open",
      transcriptPath,
      deadlineMs: 30_000,
      onProgress: (l) => lines.push(l),
    });

    expect(result).toMatchObject({ ended: "answered", text: "Both done.", turns: 2 });
    expect(server.httpRequests).toHaveLength(5);
    // Each retry waited at least what the server asked (1 s), give or take the clock's grain.
    for (const i of [1, 2, 4])
      expect(server.httpRequests[i]!.t - server.httpRequests[i - 1]!.t).toBeGreaterThanOrEqual(950);
    // The retried request is the same conversation: no tool ran in between, and none ran twice.
    expect(server.httpRequests[1]!.body).toEqual(server.httpRequests[0]!.body);
    expect(server.httpRequests[4]!.body).toEqual(server.httpRequests[3]!.body);
    const effects = sb.effects();
    for (const id of ["c1", "c2"]) {
      const row = sb.bridge.ledger.findByCallId(id)!;
      expect(row.state).toBe("done");
      expect(motionIntervals(effects).get(row.actionId)!.starts).toBe(1);
    }
    expect(effects.filter((e) => e.event === "motion_start")).toHaveLength(2);
    const t = readFileSync(transcriptPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Line);
    const retries = t.filter((l) => l.type === "model_retry");
    expect(retries).toHaveLength(3);
    expect(retries[0]).toMatchObject({
      turn: 1,
      attempt: 1,
      status: "429 RESOURCE_EXHAUSTED",
      delayMs: 1000,
      endpoint: expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:generateContent$/),
    });
    expect(retries[2]).toMatchObject({ turn: 2, attempt: 1 });
    expect(
      lines.filter(
        (l) =>
          l.startsWith("model request 1/6") && l.includes("429 RESOURCE_EXHAUSTED") && l.includes("retrying in 1.0 s"),
      ),
    ).toHaveLength(2);
    expect(result.metrics).toMatchObject({ retries: 3, model_requests: 2 });
    expect(t.at(-1)).toMatchObject({ type: "run_ended", metrics: { retries: 3 } });
  });

  it("a reset connection and a 503 with no hint are retried after a bounded back-off", async () => {
    server.unaryResponses = [httpReply("reset"), unavailable, modelTurn([{ text: "Hello." }])];
    const lines: string[] = [];
    const result = await runAgent({
      bridge: sb.bridge,
      model: client({ attempts: 4, backoff: { initialMs: 40, maxMs: 100 }, attemptTimeoutMs: 10_000 }),
      instruction: "say hello",
      deadlineMs: 20_000,
      onProgress: (l) => lines.push(l),
    });
    expect(result).toMatchObject({ ended: "answered", text: "Hello." });
    expect(server.httpRequests).toHaveLength(3);
    expect(
      lines.some(
        (l) => l.startsWith("model request 1/4") && /ECONNRESET|UND_ERR_SOCKET/.test(l) && l.includes("(back-off)"),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith("model request 2/4") && l.includes("503 UNAVAILABLE"))).toBe(true);
  });

  it("a retry delay longer than the time left fails at once, naming the endpoint, the status and what to do", async () => {
    server.unaryResponses = [exhausted("3600s")];
    const error = (await runAgent({ bridge: sb.bridge, model: client(), instruction: "x", deadlineMs: 20_000 }).catch(
      (e: unknown) => e,
    )) as Error & { code: string; details: Record<string, unknown> };
    expect(error.code).toBe("ARMB_ERR_GEMINI_API");
    expect(server.httpRequests).toHaveLength(1);
    expect(error.details).toMatchObject({
      status: "429 RESOURCE_EXHAUSTED",
      failure: "quota",
      attempts: 1,
      endpoint: expect.stringContaining(":generateContent"),
    });
    expect(error.message).toContain("asked to wait 3600.0 s, longer than the");
    expect(error.message).toContain("quota");
  });

  it("the last allowed attempt failing ends the run with the status, the attempts and advice", async () => {
    server.unaryResponses = [unavailable, unavailable, unavailable];
    const error = (await runAgent({
      bridge: sb.bridge,
      model: client({ attempts: 3, backoff: { initialMs: 20, maxMs: 40 }, attemptTimeoutMs: 10_000 }),
      instruction: "x",
      deadlineMs: 20_000,
    }).catch((e: unknown) => e)) as Error & {
      code: string;
      details: Record<string, unknown>;
    };
    expect(error.code).toBe("ARMB_ERR_GEMINI_API");
    expect(server.httpRequests).toHaveLength(3);
    expect(error.details).toMatchObject({ status: "503 UNAVAILABLE", attempts: 3, failure: "service" });
    expect(error.message).toMatch(
      /failed with 503 UNAVAILABLE after 3 attempts over \d+\.\d s: The model is overloaded/,
    );
  });

  it("a refusal that no retry changes (400, a bad key) is not retried", async () => {
    server.unaryResponses = [
      httpReply({
        status: 400,
        body: {
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
          },
        },
      }),
    ];
    const error = (await runAgent({ bridge: sb.bridge, model: client(), instruction: "x", deadlineMs: 20_000 }).catch(
      (e: unknown) => e,
    )) as Error & { code: string; details: Record<string, unknown> };
    expect(error.code).toBe("ARMB_ERR_GEMINI_API");
    expect(server.httpRequests).toHaveLength(1);
    expect(error.details).toMatchObject({ status: "400 INVALID_ARGUMENT", failure: "key" });
    expect(error.message).toContain("GEMINI_API_KEY");
  });

  it("a stop (Ctrl-C) during a retry wait ends the wait at once: the run ends, no further request", async () => {
    server.unaryResponses = [exhausted("60s")];
    const stop = new AbortController();
    const asked = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (server.httpRequests.length > 0) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    const running = runAgent({
      bridge: sb.bridge,
      model: client(),
      instruction: "x",
      deadlineMs: 600_000,
      signal: stop.signal,
    });
    await asked;
    // Let the 429 arrive and the 60 s wait begin; the test's own 30 s limit fails it if the wait ignores the stop.
    await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    const result = await running;
    expect(result.ended).toBe("deadline");
    expect(server.httpRequests).toHaveLength(1);
  });
});
