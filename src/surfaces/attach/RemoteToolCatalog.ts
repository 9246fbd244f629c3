import { z } from "zod";
import type { FunctionDeclaration, PortTool, ToolCatalogue } from "../../bridge/BridgePort.js";
import type { Logger } from "../../observability/logger.js";

/**
 * The tools of a running serve as an attached agent sees them: the
 * declarations its model is given (GET /v1/tools, exactly what serve's own
 * registry declares) and, per tool, whether it is a motion and its argument
 * schema rebuilt from the declared JSON Schema, for the agent's own
 * bookkeeping (which Live calls repeat a motion). Arguments are still
 * checked where they count, by serve's executor.
 */
export class RemoteToolCatalog implements ToolCatalogue {
  readonly #declarations: readonly FunctionDeclaration[];
  readonly #tools = new Map<string, PortTool>();

  constructor(declarations: readonly FunctionDeclaration[], log: Logger) {
    this.#declarations = declarations;
    for (const d of declarations) {
      let args: PortTool["args"];
      try {
        args = z.fromJSONSchema(d.parametersJsonSchema);
      } catch (error) {
        // A schema this zod cannot rebuild: its calls still go to serve, which checks them; they just never count as repeats.
        log.warn(
          { tool: d.name, err: String(error) },
          "could not rebuild a tool's argument schema from its declaration",
        );
        args = { safeParse: () => ({ success: false }) };
      }
      this.#tools.set(d.name, { name: d.name, blocking: d.behavior === "BLOCKING", args });
    }
  }

  declarations(): FunctionDeclaration[] {
    return [...this.#declarations];
  }

  get(name: string): PortTool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }
}
