import { z } from "zod";
import { ArmbridgeError } from "../../errors.js";
import type { ToolDefinition } from "./ToolDefinition.js";

/** A Gemini `FunctionDeclaration`: what the model sees. No local policy. */
export interface FunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parametersJsonSchema: Record<string, unknown>;
  readonly behavior?: "BLOCKING" | "NON_BLOCKING";
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * The tools armbridge exposes. Registration checks, at runtime, what the
 * `MotionTool` type already demands at compile time — a blocking tool must
 * declare its resources and how to observe it — because tools can also be
 * built from plain objects (JavaScript users, config-driven extensions).
 */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();

  register(tool: ToolDefinition): this {
    const t = tool as unknown as Partial<Record<string, unknown>>;
    const name = typeof t.name === "string" ? t.name : String(t.name);
    const fail = (reason: string): never => {
      throw new ArmbridgeError("ARMB_ERR_TOOL_POLICY", { tool: name, reason });
    };
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name)) fail("the name must match " + TOOL_NAME.source);
    if (this.#tools.has(name)) throw new ArmbridgeError("ARMB_ERR_TOOL_DUPLICATE", { tool: name });
    if (typeof t.description !== "string" || t.description.trim() === "") fail("it needs a description for the model");
    if (!(t.args instanceof z.ZodType)) fail("args must be a zod schema");
    if (typeof t.timeoutMs !== "number" || !(t.timeoutMs > 0) || !Number.isFinite(t.timeoutMs))
      fail("timeoutMs must be a positive number");
    if (t.blocking === true) {
      if (typeof t.resources !== "function") fail("a blocking tool must declare resources(args)");
      if (t.onTimeout !== "observe")
        fail(
          `a blocking tool's onTimeout must be "observe" (got ${JSON.stringify(t.onTimeout)}); retrying a motion is not an option`,
        );
      if (typeof t.observe !== "function") fail("a blocking tool must declare observe(...), its observation path");
      if (typeof t.plan !== "function") fail("a blocking tool must declare plan(args)");
    } else if (t.blocking === false) {
      if (t.kind !== "read" && t.kind !== "halt") fail('a non-blocking tool has kind "read" or "halt"');
      if (typeof t.run !== "function") fail("a non-blocking tool must declare run(args)");
    } else {
      fail("blocking must be true or false");
    }
    this.#tools.set(name, tool);
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  all(): ToolDefinition[] {
    return [...this.#tools.values()];
  }

  /** The declarations sent to models: JSON Schema from zod, local policy stripped. */
  declarations(): FunctionDeclaration[] {
    return this.all().map((tool) => {
      const schema = z.toJSONSchema(tool.args, {
        target: "draft-2020-12",
        io: "input",
        unrepresentable: "any",
      }) as Record<string, unknown>;
      delete schema.$schema;
      return {
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: schema,
        ...(tool.blocking ? { behavior: "BLOCKING" as const } : {}),
      };
    });
  }
}
