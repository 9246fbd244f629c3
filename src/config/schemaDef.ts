import type { z } from "zod";

/**
 * The parts of a zod schema's definition the config reads when it walks its
 * own schemas (the snake→camel mapping, the generated reference page): zod
 * keeps them under `_zod.def`, which its public types do not name.
 */
export interface SchemaDef {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly items?: readonly z.ZodType[];
  readonly entries?: Record<string, string>;
  readonly values?: readonly unknown[];
  readonly defaultValue?: unknown;
  readonly checks?: readonly { _zod: { def: { check: string; format?: string } } }[];
}

export function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}
