import { Behavior, type FunctionDeclaration, type Tool } from "@google/genai";
import type { ToolRegistry } from "../../tools/ToolRegistry.js";

/**
 * The `tools` entry of a Gemini request (unary `config.tools` and Live
 * `setup.tools`): one Tool holding every declaration of the registry, as
 * JSON Schema (`parametersJsonSchema`) with `behavior: BLOCKING` on motions,
 * so a Live model waits for a motion's result before it goes on.
 */
export function geminiTools(registry: Pick<ToolRegistry, "declarations">): Tool[] {
  const functionDeclarations: FunctionDeclaration[] = registry.declarations().map((d) => ({
    name: d.name,
    description: d.description,
    parametersJsonSchema: d.parametersJsonSchema,
    ...(d.behavior === undefined ? {} : { behavior: d.behavior === "BLOCKING" ? Behavior.BLOCKING : Behavior.NON_BLOCKING }),
  }));
  return [{ functionDeclarations }];
}
