import { GoogleGenAI } from "@google/genai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpReply, ScriptedGeminiServer } from "../../fixtures/gemini/ScriptedGeminiServer.js";

const answer = { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] };
const exhausted = (seconds: number) =>
  httpReply({
    status: 429,
    headers: { "retry-after": String(seconds) },
    body: {
      error: {
        code: 429,
        message: "quota",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }],
      },
    },
  });

/**
 * Why armbridge retries model requests itself (retryModelRequest) instead of
 * setting the SDK's `httpOptions.retryOptions`: these pin down how
 * @google/genai 2.32's own retries behave (ApiClient.apiCall on p-retry 4).
 * If an SDK upgrade fixes them, these fail and the choice can be revisited.
 */
describe("@google/genai's own retryOptions, as armbridge found them", () => {
  let server: ScriptedGeminiServer;
  beforeEach(async () => {
    server = await ScriptedGeminiServer.start();
  });
  afterEach(async () => {
    await server.close();
  });
  const sdk = (retryOptions: { attempts: number; initialDelay: number }): GoogleGenAI =>
    new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: server.baseUrl, apiVersion: "v1beta", retryOptions } });

  it("ignore Retry-After and RetryInfo: a 429 asking for 3 s is retried after its own short back-off", async () => {
    server.unaryResponses = [exhausted(3), answer];
    await sdk({ attempts: 3, initialDelay: 0.05 }).models.generateContent({ model: "m", contents: "hi" });
    expect(server.httpRequests).toHaveLength(2);
    expect(server.httpRequests[1]!.t - server.httpRequests[0]!.t).toBeLessThan(2_000);
  });

  it("do not retry a reset connection (p-retry 4 gives up on undici's 'fetch failed' TypeError)", async () => {
    server.unaryResponses = [httpReply("reset"), answer];
    await expect(
      sdk({ attempts: 3, initialDelay: 0.05 }).models.generateContent({ model: "m", contents: "hi" }),
    ).rejects.toThrow(TypeError);
    expect(server.httpRequests).toHaveLength(1);
  });

  it("keep waiting out the back-off after the abort signal fired", async () => {
    server.unaryResponses = [exhausted(1), answer];
    const stop = new AbortController();
    const t0 = Date.now();
    const pending = sdk({ attempts: 2, initialDelay: 3 }).models.generateContent({
      model: "m",
      contents: "hi",
      config: { abortSignal: stop.signal },
    });
    setTimeout(() => stop.abort(), 300);
    await expect(pending).rejects.toBeDefined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_500);
  });
});
