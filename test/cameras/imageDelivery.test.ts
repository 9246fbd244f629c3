import { describe, expect, it } from "vitest";
import type { CameraImage } from "../../src/cameras/CameraImage.js";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import {
  functionResponseContent,
  readsImagesInFunctionResponses,
} from "../../src/surfaces/gemini/functionResponseContent.js";
import { toCallToolResult } from "../../src/surfaces/mcp/toCallToolResult.js";
import { toFunctionResponse } from "../../src/surfaces/toFunctionResponse.js";

const image: CameraImage = {
  camera: "overhead",
  mime_type: "image/jpeg",
  data: Buffer.from("not really a jpeg").toString("base64"),
  width: 640,
  height: 480,
  captured_at: "2026-12-01T14:00:00.000Z",
  capture_time_from: "rendered",
  age_ms: 3,
  stale: false,
  stale_after_ms: 2000,
};
const result: CallResult = {
  status: "done",
  message: "Picture from camera overhead.",
  timed_out: false,
  settled_by: "completion",
  output: { image: {} },
  images: [image],
};
const response = { id: "c1", name: "get_camera_image", result };

describe("how a picture reaches the model", () => {
  it("MCP: an `image` content item (base64 data + mimeType) after the text; the JSON and structuredContent carry the description, not the bytes", () => {
    const mcp = toCallToolResult(response);
    const content = mcp.content as { type: string; data?: string; mimeType?: string; text?: string }[];
    expect(content).toHaveLength(2);
    expect(content[1]).toEqual({ type: "image", data: image.data, mimeType: "image/jpeg" });
    expect(content[0]?.text).not.toContain(image.data);
    const structured = mcp.structuredContent as { images: Record<string, unknown>[] };
    expect(structured.images[0]).not.toHaveProperty("data");
    expect(structured.images[0]).toMatchObject({
      camera: "overhead",
      width: 640,
      stale: false,
      delivered_as: expect.any(String),
    });
    expect(mcp.isError).toBe(false);
  });

  it("FunctionResponse: the bytes move to `parts` as inlineData, the result keeps the description", () => {
    const fr = toFunctionResponse(response);
    expect(fr.parts).toEqual([{ inlineData: { mimeType: "image/jpeg", data: image.data } }]);
    expect(JSON.stringify(fr.response)).not.toContain(image.data);
  });

  it("Gemini 3 models: the picture inside the function response (FunctionResponse.parts)", () => {
    expect(readsImagesInFunctionResponses("gemini-3-flash-preview")).toBe(true);
    const content = functionResponseContent([toFunctionResponse(response)], "gemini-3-flash-preview");
    expect(content.role).toBe("user");
    expect(content.parts).toHaveLength(1);
    expect(content.parts?.[0]?.functionResponse?.parts).toEqual([
      { inlineData: { mimeType: "image/jpeg", data: image.data } },
    ]);
  });

  it.each(["gemini-robotics-er-1.5-preview", "gemini-2.5-flash", "replay:session.json"])(
    "%s: the picture after the function responses, in the same user turn, named by call",
    (model) => {
      expect(readsImagesInFunctionResponses(model)).toBe(false);
      const content = functionResponseContent(
        [
          toFunctionResponse(response),
          toFunctionResponse({ id: "c2", name: "get_arm_state", result: { ...result, images: [] } }),
        ],
        model,
      );
      const parts = content.parts ?? [];
      expect(parts.slice(0, 2).map((p) => p.functionResponse?.id)).toEqual(["c1", "c2"]);
      expect(parts[0]?.functionResponse?.parts).toBeUndefined();
      expect(parts[2]?.text).toMatch(/get_camera_image \(call c1\)/);
      expect(parts[3]?.inlineData).toEqual({ mimeType: "image/jpeg", data: image.data });
      expect(parts).toHaveLength(4);
    },
  );
});
