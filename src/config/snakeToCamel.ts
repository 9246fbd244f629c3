import type { z } from "zod";
import { defOf, type SchemaDef } from "./schemaDef.js";

/**
 * Config files are snake_case (as ROS parameter files are) and code is
 * camelCase. One mapping for every section: it walks a parsed value beside
 * the schema that parsed it and renames the keys of every object the schema
 * declares field by field, so a key's code name always follows from its file
 * name; records keyed by names (joints, poses, tools, links) keep their keys.
 */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The type `camelDeep` returns: object keys renamed at every depth; arrays and tuples keep their shape. */
export type CamelDeep<T> = T extends readonly unknown[]
  ? { -readonly [I in keyof T]: CamelDeep<T[I]> }
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: CamelDeep<T[K]> }
    : T;

export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Of a union's object options, the one declaring every key the value has. */
function unionOption(def: SchemaDef, value: Record<string, unknown>): z.ZodType | undefined {
  return def.options?.find((option) => {
    const shape = defOf(option).shape;
    return shape !== undefined && Object.keys(value).every((key) => key in shape);
  });
}

/** `value` (parsed by `schema`) with every declared object's keys in camelCase. */
export function camelDeep<S extends z.ZodType>(schema: S, value: z.output<S>): CamelDeep<z.output<S>> {
  return walk(schema, value) as CamelDeep<z.output<S>>;
}

function walk(schema: z.ZodType, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      if (!isPlainObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) {
        const fieldSchema = def.shape?.[key];
        out[camelCase(key)] = fieldSchema ? walk(fieldSchema, field) : field;
      }
      return out;
    }
    case "record": {
      if (!isPlainObject(value) || def.valueType === undefined) return value;
      const valueType = def.valueType;
      return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, walk(valueType, field)]));
    }
    case "array":
      return Array.isArray(value) && def.element ? value.map((item) => walk(def.element!, item)) : value;
    case "union": {
      const option = isPlainObject(value) ? unionOption(def, value) : undefined;
      return option ? walk(option, value) : value;
    }
    case "pipe":
      return def.out && defOf(def.out).type !== "transform" ? walk(def.out, value) : walk(def.in!, value);
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
      return def.innerType ? walk(def.innerType, value) : value;
    default:
      return value;
  }
}
