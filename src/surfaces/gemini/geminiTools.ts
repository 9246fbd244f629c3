import { Behavior, type FunctionDeclaration, type Tool } from "@google/genai";
import type { ToolCatalogue } from "../../bridge/BridgePort.js";

/**
 * Which Gemini method the declarations go to. `behavior` on a
 * FunctionDeclaration is documented only for Live: "This field is currently
 * only supported by the BidiGenerateContent method" (@google/genai 2.32.0,
 * dist/genai.d.ts, `FunctionDeclaration.behavior` and `enum Behavior`).
 */
export type GeminiEndpoint = "generateContent" | "bidiGenerateContent";

/**
 * What a unary model is told instead of `behavior: BLOCKING`: generateContent
 * has no notion of a call the model must wait for, so the description says
 * it. Every unary call blocks anyway (the loop answers a turn only once all
 * its calls have settled); this makes the model plan for it.
 */
export const UNARY_BLOCKING_NOTE =
  "This call blocks: its result comes back only once the motion has settled (target reached, stopped, or judged by observing the arm), never while the arm is still moving.";

/**
 * The `tools` entry of a Gemini request (unary `config.tools`, Live
 * `setup.tools`): one Tool holding every declaration of the registry, as JSON
 * Schema (`parametersJsonSchema`). Live motions carry `behavior: BLOCKING`, so
 * the model waits for a motion's result before it goes on; unary motions say
 * so in their description, and no unary declaration carries `behavior`.
 */
export function geminiTools(
  registry: Pick<ToolCatalogue, "declarations">,
  options: { readonly endpoint: GeminiEndpoint },
): Tool[] {
  const functionDeclarations: FunctionDeclaration[] = registry.declarations().map((d) => {
    const base = { name: d.name, parametersJsonSchema: d.parametersJsonSchema };
    switch (options.endpoint) {
      case "bidiGenerateContent":
        return {
          ...base,
          description: d.description,
          ...(d.behavior === undefined
            ? {}
            : { behavior: d.behavior === "BLOCKING" ? Behavior.BLOCKING : Behavior.NON_BLOCKING }),
        };
      case "generateContent":
        return {
          ...base,
          description: d.behavior === "BLOCKING" ? `${d.description} ${UNARY_BLOCKING_NOTE}` : d.description,
        };
    }
  });
  return [{ functionDeclarations }];
}
