import type { Content } from "@google/genai";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { ReplayModelClient } from "../../../src/surfaces/gemini/ReplayModelClient.js";
import { namedColour } from "../../../src/imaging/sim/namedColour.js";

/** A 100×50 grey PNG with a block of `colour` over x in [60, 70), y in [10, 20). */
function pictureBase64(colour: readonly [number, number, number]): string {
  const png = new PNG({ width: 100, height: 50 });
  for (let y = 0; y < 50; y++) {
    for (let x = 0; x < 100; x++) {
      const inBlock = x >= 60 && x < 70 && y >= 10 && y < 20;
      png.data.set([...(inBlock ? colour : [150, 150, 150]), 255], 4 * (y * 100 + x));
    }
  }
  return PNG.sync.write(png).toString("base64");
}

const SCRIPT = [
  JSON.stringify({ calls: [{ id: "look", name: "get_camera_image", args: { camera: "overhead" } }] }),
  JSON.stringify({
    calls: [
      {
        id: "reach",
        name: "move_to_image_point",
        args: { camera: "overhead", height_m: 0.1 },
        locate: { image_from: "look", colour: "red" },
      },
    ],
  }),
  JSON.stringify({ text: "done" }),
].join("\n");

const signal = new AbortController().signal;
const request = (contents: Content[]) => ({ contents, tools: [], systemInstruction: "", signal });
const first: Content = { role: "user", parts: [{ text: "pick the red block" }] };

describe("replay `locate`: a point read out of the delivered picture", () => {
  it("fills the argument with the colour's centroid as [y, x] in 0–1000, from the image inside the functionResponse", async () => {
    const replay = ReplayModelClient.fromText(SCRIPT);
    const t1 = await replay.generate(request([first]));
    const answer: Content = {
      role: "user",
      parts: [
        {
          functionResponse: {
            id: "look",
            name: "get_camera_image",
            response: { output: { status: "done" } },
            parts: [{ inlineData: { mimeType: "image/png", data: pictureBase64(namedColour("red")) } }],
          },
        },
      ],
    };
    const t2 = await replay.generate(request([first, t1.content, answer]));
    // Centroid x = 65 of 100 -> 650; y = 15 of 50 -> 300.
    expect(t2.calls).toEqual([
      { id: "reach", name: "move_to_image_point", args: { camera: "overhead", height_m: 0.1, point: [300, 650] } },
    ]);
    // The turn that goes into the history carries the point, as a real model's would.
    expect(t2.content.parts?.[0]?.functionCall?.args).toEqual({ camera: "overhead", height_m: 0.1, point: [300, 650] });
  });

  it("a picture without the colour, or no picture at all, is ARMB_ERR_GEMINI_REPLAY (nothing is guessed)", async () => {
    for (const parts of [
      [
        {
          functionResponse: {
            id: "look",
            name: "get_camera_image",
            response: { output: { status: "done" } },
            parts: [{ inlineData: { mimeType: "image/png", data: pictureBase64(namedColour("blue")) } }],
          },
        },
      ],
      [{ functionResponse: { id: "look", name: "get_camera_image", response: { output: { status: "failed" } } } }],
    ]) {
      const replay = ReplayModelClient.fromText(SCRIPT);
      const t1 = await replay.generate(request([first]));
      await expect(replay.generate(request([first, t1.content, { role: "user", parts }]))).rejects.toMatchObject({
        code: "ARMB_ERR_GEMINI_REPLAY",
      });
    }
  });
});
