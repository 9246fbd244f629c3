import type { Content, Part } from "@google/genai";

export interface DeliveredImage {
  readonly mimeType: string;
  readonly bytes: Buffer;
}

/**
 * The image the conversation delivered with call `callId`'s result, as the
 * model received it: inline data inside that functionResponse (its `parts`,
 * which the Gemini API accepts for multimodal function results), else an
 * inlineData part of the same user turn, else of the user turn right after
 * it. The most recent delivery wins when the call was answered twice.
 */
export function imageDeliveredFor(contents: readonly Content[], callId: string): DeliveredImage | undefined {
  let found: DeliveredImage | undefined;
  contents.forEach((content, i) => {
    const parts = content.parts ?? [];
    const response = parts.find((p) => p.functionResponse?.id === callId)?.functionResponse;
    if (content.role !== "user" || !response) return;
    const inResponse = (response.parts ?? []).flatMap((p) =>
      p.inlineData?.data ? [{ mimeType: p.inlineData.mimeType ?? "", data: p.inlineData.data }] : [],
    );
    const next = contents[i + 1];
    const candidates = [
      ...inResponse,
      ...inlineImages(parts),
      ...(next?.role === "user" ? inlineImages(next.parts ?? []) : []),
    ];
    const first = candidates[0];
    if (first) found = { mimeType: first.mimeType, bytes: Buffer.from(first.data, "base64") };
  });
  return found;
}

function inlineImages(parts: readonly Part[]): { mimeType: string; data: string }[] {
  return parts.flatMap((p) =>
    p.inlineData?.data && (p.inlineData.mimeType ?? "").startsWith("image/")
      ? [{ mimeType: p.inlineData.mimeType ?? "", data: p.inlineData.data }]
      : [],
  );
}
