import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { imageParts } from "../../../src/surfaces/gemini/imageParts.js";
import { GeminiModelClient } from "../../../src/surfaces/gemini/GeminiModelClient.js";
import { UNARY_BLOCKING_NOTE } from "../../../src/surfaces/gemini/geminiTools.js";
import { runAgent } from "../../../src/surfaces/gemini/runAgent.js";
import { ScriptedGeminiServer } from "../../fixtures/gemini/ScriptedGeminiServer.js";
import { startSimBridge, type SimBridge } from "../../fixtures/gemini/simBridge.js";

const modelTurn = (parts: unknown[]) => ({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }] });

describe("GeminiModelClient through the real SDK (generateContent on a local server via httpOptions.baseUrl)", () => {
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

  it("sends the registry's declarations, executes the turn's calls together and returns functionResponses with the same ids", async () => {
    server.unaryResponses = [
      modelTurn([
        { text: "Moving two joints.", thoughtSignature: "c2lnbmF0dXJl" },
        { functionCall: { id: "c1", name: "move_joints", args: { positions: { wrist_3: 0.4 } } } },
        { functionCall: { id: "c2", name: "set_gripper", args: { position: 0.5 } } },
      ]),
      modelTurn([{ text: "Both done." }]),
    ];
    const model = new GeminiModelClient({
      apiKey: "test-key",
      baseUrl: server.baseUrl,
      apiVersion: "v1beta",
      model: "gemini-test",
    });
    const image = join(sb.dir, "scene.png");
    writeFileSync(image, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const result = await runAgent({
      bridge: sb.bridge,
      model,
      instruction: "twist and open halfway",
      images: [image],
      deadlineMs: 20_000,
    });

    expect(result).toMatchObject({ ended: "answered", text: "Both done.", turns: 2 });
    expect(server.httpRequests.map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-test:generateContent",
      "/v1beta/models/gemini-test:generateContent",
    ]);
    const first = server.httpRequests[0]!.body as {
      tools: {
        functionDeclarations: {
          name: string;
          description: string;
          behavior?: string;
          parametersJsonSchema: { type: string };
        }[];
      }[];
      systemInstruction: unknown;
      contents: unknown[];
    };
    const decls = first.tools[0]!.functionDeclarations;
    expect(decls.map((d) => d.name).sort()).toEqual(sb.bridge.registry.names().sort());
    // generateContent gets no `behavior` (the SDK documents it for BidiGenerateContent only); motions say in words that they block.
    for (const d of decls) expect(d).not.toHaveProperty("behavior");
    const motions = new Set(
      sb.bridge.registry
        .declarations()
        .filter((d) => d.behavior === "BLOCKING")
        .map((d) => d.name),
    );
    expect(motions.size).toBeGreaterThan(0);
    for (const d of decls) expect(d.description.endsWith(UNARY_BLOCKING_NOTE)).toBe(motions.has(d.name));
    expect(decls.find((d) => d.name === "move_joints")).toMatchObject({ parametersJsonSchema: { type: "object" } });
    expect(first.systemInstruction).toBeDefined();
    expect(first.contents).toEqual([
      {
        role: "user",
        parts: [{ text: "twist and open halfway" }, { inlineData: { mimeType: "image/png", data: "iVBORw==" } }],
      },
    ]);

    const second = server.httpRequests[1]!.body as { contents: { role: string; parts: Record<string, unknown>[] }[] };
    // The model's turn goes back unchanged (thought signature included), then one functionResponse per call, same ids, in order.
    expect(second.contents[1]!.role).toBe("model");
    expect(second.contents[1]!.parts).toHaveLength(3);
    expect(second.contents[1]!.parts[0]).toEqual({ text: "Moving two joints.", thoughtSignature: "c2lnbmF0dXJl" });
    const reply = second.contents[2]!;
    expect(reply.role).toBe("user");
    expect(reply.parts.map((p) => (p.functionResponse as { id: string; name: string }).id)).toEqual(["c1", "c2"]);
    expect(reply.parts[0]).toMatchObject({
      functionResponse: {
        id: "c1",
        name: "move_joints",
        response: { output: { status: "done", settled_by: "completion" } },
      },
    });
  });

  it("an API error is ARMB_ERR_GEMINI_API", async () => {
    server.unaryResponses = [];
    const model = new GeminiModelClient({ apiKey: "test-key", baseUrl: server.baseUrl, model: "gemini-test" });
    await expect(runAgent({ bridge: sb.bridge, model, instruction: "x" })).rejects.toMatchObject({
      code: "ARMB_ERR_GEMINI_API",
    });
  });
});

describe("imageParts", () => {
  it("takes the MIME type from the extension and refuses others with ARMB_ERR_CLI_USAGE", () => {
    expect(() => imageParts(["/tmp/scene.gif"])).toThrow(expect.objectContaining({ code: "ARMB_ERR_CLI_USAGE" }));
    expect(() => imageParts(["/nonexistent/scene.jpg"])).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_CLI_USAGE" }),
    );
  });
});

describe("the real Gemini API", () => {
  it.skipIf(!process.env.GEMINI_API_KEY)(
    "answers with a function call for a simple arm task (skipped: needs GEMINI_API_KEY and internet)",
    async () => {
      const sb = await startSimBridge();
      try {
        const model = new GeminiModelClient({
          apiKey: process.env.GEMINI_API_KEY!,
          model: process.env.ARMBRIDGE_TEST_MODEL,
        });
        const result = await runAgent({
          bridge: sb.bridge,
          model,
          instruction: "Read the arm's state, then move wrist_3 to 0.3 rad, then tell me you are done.",
          maxTurns: 6,
          deadlineMs: 120_000,
        });
        expect(result.responses.length).toBeGreaterThan(0);
        expect(result.ended).toBe("answered");
      } finally {
        await sb.close();
      }
    },
    150_000,
  );
});
