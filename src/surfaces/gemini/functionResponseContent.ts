import type { Content, Part } from "@google/genai";
import type { FunctionResponse } from "../toFunctionResponse.js";

/**
 * Whether a model reads images inside a function response
 * (`FunctionResponse.parts[].inlineData`, @google/genai 2.32
 * `FunctionResponsePart`). Google documents multimodal function responses
 * for the Gemini 3 series (ai.google.dev/gemini-api/docs/function-calling,
 * "Multimodal function responses"; the Gemini 3 developer guide); earlier
 * models — Gemini 2.5 and Gemini Robotics-ER 1.5, which is built on it —
 * are not listed. `gemini-3*` ids get the parts; every other model gets
 * the image in the user turn that carries the function responses.
 */
export function readsImagesInFunctionResponses(model: string): boolean {
  return /^(models\/)?gemini-3/.test(model);
}

/**
 * The user turn answering a model turn's calls: one functionResponse part per
 * call, and each call's pictures either inside its function response (models
 * that read them there) or after the function responses as inline-data parts,
 * each preceded by a text part naming the call it belongs to.
 */
export function functionResponseContent(responses: readonly FunctionResponse[], model: string): Content {
  const inside = readsImagesInFunctionResponses(model);
  const parts: Part[] = responses.map((r): Part => ({
    functionResponse: {
      id: r.id,
      name: r.name,
      response: r.response,
      ...(inside && r.parts ? { parts: r.parts.map((p) => ({ inlineData: { ...p.inlineData } })) } : {}),
    },
  }));
  if (!inside) {
    for (const r of responses) {
      if (!r.parts || r.parts.length === 0) continue;
      parts.push({ text: `The picture${r.parts.length > 1 ? "s" : ""} returned by ${r.name} (call ${r.id}):` });
      for (const p of r.parts) parts.push({ inlineData: { ...p.inlineData } });
    }
  }
  return { role: "user", parts };
}
