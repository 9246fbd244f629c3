import { Cameras } from "../../cameras/Cameras.js";
import { loadConfig } from "../../config/loadConfig.js";
import type { FunctionDeclaration } from "../../bridge/BridgePort.js";
import { createDefaultTools } from "../../tools/defaultTools.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { JSON_FLAG, JSON_FLAG_HELP, printRecord, wantsJson } from "./printRecords.js";

export const TOOLS_FLAGS = { ...CLIENT_FLAG_OPTIONS, ...JSON_FLAG, config: { type: "string" } } as const;

export const TOOLS_HELP = `Usage: armbridge tools [--config FILE] [--json] [--url URL] [--token T]

Lists the tools a model can call on this arm, with their arguments: on a
terminal, each tool's name, kind, arguments (a ? marks an optional one) and
what the model is told about it; with --json, or whenever stdout is not a
terminal, {"functionDeclarations":[...]}, exactly what models are sent (as
GET /v1/tools). Read from the arm config (no arm needed), or, with --url or
--token, from a running \`armbridge serve\`.

Flags:
  --config FILE      arm config (YAML/JSON); default: the simulated 6-axis arm
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export async function toolsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, TOOLS_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const remote = values.url !== undefined || values.token !== undefined;
  if (remote && values.config !== undefined)
    throw cliUsageError(
      "--config reads the tools from a config file; --url/--token ask a running serve: give one or the other",
    );
  let declarations: readonly FunctionDeclaration[];
  if (remote) {
    declarations = (await clientFromFlags(values, io).call("tools")).functionDeclarations;
  } else {
    const config = loadConfig(values.config);
    // No arm: the cameras are only named (their tools are declared), never opened.
    const cameras = new Cameras({ config, pose: () => undefined });
    try {
      declarations = createDefaultTools(config, { cameras }).declarations();
    } finally {
      cameras.close();
    }
  }
  printRecord(io, wantsJson(io, values.json), { functionDeclarations: declarations }, () =>
    describeTools(declarations),
  );
  return 0;
}

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly items?: JsonSchema;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly description?: string;
}

/**
 * Every tool for a person. The models get each tool's description whole (a
 * model reads one declaration at a time), so the sentences several tools
 * share — how a motion blocks, what each result status means — are in each;
 * a person reading the list gets them once, as numbered notes at the end,
 * each tool pointing at its notes.
 */
export function describeTools(declarations: readonly FunctionDeclaration[]): string {
  const sentencesOf = new Map(declarations.map((d) => [d, sentences(d.description)]));
  const uses = new Map<string, number>();
  for (const list of sentencesOf.values()) for (const s of new Set(list)) uses.set(s, (uses.get(s) ?? 0) + 1);
  const notes: string[] = [];
  const noteOf = (s: string): number | undefined => {
    if ((uses.get(s) ?? 0) < 2 || s.length < SHARED_MIN_LENGTH) return undefined;
    const at = notes.indexOf(s);
    return at >= 0 ? at + 1 : notes.push(s);
  };
  const tools = declarations.map((d) => {
    const own: string[] = [];
    const refs: number[] = [];
    for (const s of sentencesOf.get(d) ?? []) {
      const n = noteOf(s);
      if (n === undefined) own.push(s);
      else refs.push(n);
    }
    const see = refs.length === 0 ? "" : ` (${refs.length === 1 ? "note" : "notes"} ${refs.join(", ")})`;
    return describeTool(d, `${own.join(" ")}${see}`);
  });
  const shared =
    notes.length === 0 ? [] : ["Notes shared by several tools:", ...notes.map((n, i) => `  ${i + 1}. ${n}`), ""];
  return [...tools, ...shared].join("\n");
}

/** A sentence at least this long, said by two tools or more, becomes a note (short ones such as "Read-only." stay in place). */
const SHARED_MIN_LENGTH = 25;

/** A description's sentences: split after a full stop followed by a capital (so "e.g. 0.10" stays whole). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=\.)\s+(?=[A-Z])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A tool for a person: name and kind, its arguments one per line, then its description (or `text` in its place). */
export function describeTool(d: FunctionDeclaration, text: string = d.description): string {
  const kind = d.behavior === "BLOCKING" ? "motion: blocks until it settles" : "read or halt: never queued";
  const schema = d.parametersJsonSchema as JsonSchema;
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const args =
    props.length === 0
      ? ["    (no arguments)"]
      : props.map(
          ([name, p]) =>
            `    ${name}${required.has(name) ? "" : "?"}: ${typeText(p)}${p.description ? ` \u2014 ${p.description}` : ""}`,
        );
  return [`${d.name} (${kind})`, ...args, `  ${text}`, ""].join("\n");
}

/** A bound for a person: as configured when short, else to three decimals (6.283 for 2π, not 6.283185307179586). */
function boundText(n: number): string {
  return String(n).length <= 6 ? String(n) : String(Number(n.toFixed(3)));
}

function typeText(p: JsonSchema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(" | ");
  const alternatives = p.anyOf ?? p.oneOf;
  if (alternatives) return alternatives.map(typeText).join(" | ");
  const type: string = typeof p.type === "string" ? p.type : p.type ? p.type.join(" | ") : "any";
  if (type === "object" && p.properties) {
    const req = new Set(p.required ?? []);
    return `{${Object.entries(p.properties)
      .map(([k, v]) => `${k}${req.has(k) ? "" : "?"}: ${typeText(v)}`)
      .join(", ")}}`;
  }
  if (type === "array" && p.items) return `[${typeText(p.items)}, …]`;
  const range =
    p.minimum !== undefined || p.maximum !== undefined
      ? ` ${p.minimum === undefined ? "…" : boundText(p.minimum)}..${p.maximum === undefined ? "…" : boundText(p.maximum)}`
      : "";
  return `${type}${range}`;
}
