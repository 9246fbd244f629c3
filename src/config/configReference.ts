import type { z } from "zod";
import { defOf } from "./schemaDef.js";
import { armConfigFile } from "./armConfigFile.js";
import { RENAMED_KEYS } from "./renamedKeys.js";

/**
 * docs/config.md, written from the schemas: every key path with its type,
 * default, unit and doc text (each schema's `.describe()`). `npm run
 * docs:config` writes the page and a test fails when it and the schemas
 * differ, so the reference cannot fall behind the code.
 */
interface Row {
  readonly path: string;
  readonly type: string;
  readonly fallback: string;
  readonly unit: string;
  readonly doc: string;
}

const UNITS: readonly [string, string][] = [
  ["_ms", "ms"],
  ["_mps", "m/s"],
  ["_m", "m"],
  ["_deg", "°"],
  ["_s", "s"],
];

function unitOf(key: string): string {
  return UNITS.find(([suffix]) => key.endsWith(suffix))?.[1] ?? "";
}

/** A schema with its wrappers taken off, the doc text found on the way, and its default. */
function unwrap(schema: z.ZodType): { core: z.ZodType; doc: string; fallback: unknown; optional: boolean } {
  let doc = schema.description ?? "";
  let fallback: unknown = undefined;
  let optional = false;
  let core = schema;
  for (;;) {
    const def = defOf(core);
    if (def.type === "optional") optional = true;
    if ((def.type === "default" || def.type === "prefault") && fallback === undefined) fallback = def.defaultValue;
    const next = ["optional", "nullable", "default", "prefault", "readonly"].includes(def.type)
      ? def.innerType
      : def.type === "pipe"
        ? defOf(def.out!).type === "transform"
          ? def.in
          : def.out
        : undefined;
    if (next === undefined) return { core, doc, fallback, optional };
    core = next;
    doc ||= core.description ?? "";
  }
}

function typeOf(schema: z.ZodType): string {
  const def = defOf(unwrap(schema).core);
  switch (def.type) {
    case "number":
      return def.checks?.some((c) => c._zod.def.format === "safeint") ? "integer" : "number";
    case "enum":
      return Object.values(def.entries ?? {})
        .map((v) => JSON.stringify(v))
        .join(" \\| ");
    case "literal":
      return (def.values ?? []).map((v) => JSON.stringify(v)).join(" \\| ");
    case "union":
      return (def.options ?? []).map(typeOf).join(" \\| ");
    case "tuple":
      return `[${(def.items ?? []).map(typeOf).join(", ")}]`;
    case "array":
      return `${typeOf(def.element!)}[]`;
    case "record":
      return "map";
    default:
      return def.type;
  }
}

function rowsOf(schema: z.ZodType, path: string, key: string, rows: Row[]): void {
  const { core, doc, fallback, optional } = unwrap(schema);
  const def = defOf(core);
  const shown = fallback === undefined ? (optional ? "—" : "required") : `\`${JSON.stringify(fallback)}\``;
  rows.push({ path, type: typeOf(schema), fallback: shown, unit: unitOf(key), doc });
  if (def.type === "object") for (const [k, field] of Object.entries(def.shape ?? {})) rowsOf(field, `${path}.${k}`, k, rows);
  if (def.type === "record" && def.valueType) rowsOf(def.valueType, `${path}.<name>`, "", rows);
  if (def.type === "array" && def.element) childRows(def.element, `${path}[]`, rows);
  if (def.type === "union") for (const option of def.options ?? []) childRows(option, path, rows);
}

/** The fields of an array's or a union's object elements, without a row for the element itself. */
function childRows(schema: z.ZodType, path: string, rows: Row[]): void {
  const def = defOf(unwrap(schema).core);
  if (def.type === "object") for (const [k, field] of Object.entries(def.shape ?? {})) rowsOf(field, `${path}.${k}`, k, rows);
  if (def.type === "union") for (const option of def.options ?? []) childRows(option, path, rows);
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function configReference(): string {
  const rows: Row[] = [];
  for (const [key, field] of Object.entries(armConfigFile.shape)) rowsOf(field as z.ZodType, key, key, rows);
  const seen = new Set<string>();
  const unique = rows.filter((r) => !seen.has(r.path) && seen.add(r.path));
  const table = unique.map(
    (r) => `| \`${r.path}\` | ${r.type.includes("\\|") ? r.type : cell(r.type)} | ${r.fallback} | ${r.unit} | ${cell(r.doc)} |`,
  );
  const renamed = RENAMED_KEYS.map((k) => {
    const where = [...k.section, ""].join(".");
    return `| \`${where}${k.old}\` | \`${where}${k.renamed}\` |`;
  });
  return [
    "# Arm config reference",
    "",
    "<!-- Generated from src/config/sections by `npm run docs:config`; do not edit by hand. -->",
    "",
    "Every key of an arm config file (YAML or JSON), as its schema reads it. Keys are snake_case;",
    "durations are in milliseconds (`_ms`) unless the key mirrors an outside ROS or MoveIt parameter,",
    "which its text then says. `—` marks a key that may be left out; `<name>` a key you choose.",
    "",
    "| key | type | default | unit | meaning |",
    "|---|---|---|---|---|",
    ...table,
    "",
    "## Renamed keys",
    "",
    "A file using an old name still loads; the loader logs a warning naming the new key. Giving both is refused.",
    "",
    "| old key | use |",
    "|---|---|",
    ...renamed,
    "",
  ].join("\n");
}
