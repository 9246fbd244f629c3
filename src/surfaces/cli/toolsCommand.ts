import { Cameras } from "../../cameras/Cameras.js";
import { loadConfig } from "../../config/loadConfig.js";
import type { FunctionDeclaration } from "../../executor/ToolRegistry.js";
import { createDefaultTools } from "../../tools/defaultTools.js";
import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags } from "./parseCommandFlags.js";
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
  if (remote && values.config !== undefined) throw cliUsageError("--config reads the tools from a config file; --url/--token ask a running serve: give one or the other");
  let declarations: readonly FunctionDeclaration[];
  if (remote) {
    declarations = ((await ApiClient.fromFlags(values, io).request("GET", "/v1/tools")) as { functionDeclarations: FunctionDeclaration[] }).functionDeclarations;
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
  printRecord(io, wantsJson(io, values.json), { functionDeclarations: declarations }, () => declarations.map(describeTool).join("\n"));
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

/** A tool for a person: name and kind, its arguments one per line, then its description. */
export function describeTool(d: FunctionDeclaration): string {
  const kind = d.behavior === "BLOCKING" ? "motion: blocks until it settles" : "read or halt: never queued";
  const schema = d.parametersJsonSchema as JsonSchema;
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const args = props.length === 0 ? ["    (no arguments)"] : props.map(([name, p]) => `    ${name}${required.has(name) ? "" : "?"}: ${typeText(p)}${p.description ? ` \u2014 ${p.description}` : ""}`);
  return [`${d.name} (${kind})`, ...args, `  ${d.description}`, ""].join("\n");
}

function typeText(p: JsonSchema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(" | ");
  const alternatives = p.anyOf ?? p.oneOf;
  if (alternatives) return alternatives.map(typeText).join(" | ");
  const type: string = typeof p.type === "string" ? p.type : p.type ? p.type.join(" | ") : "any";
  if (type === "object" && p.properties) {
    const req = new Set(p.required ?? []);
    return `{${Object.entries(p.properties).map(([k, v]) => `${k}${req.has(k) ? "" : "?"}: ${typeText(v)}`).join(", ")}}`;
  }
  if (type === "array" && p.items) return `[${typeText(p.items)}, …]`;
  const range = p.minimum !== undefined || p.maximum !== undefined ? ` ${p.minimum ?? "…"}..${p.maximum ?? "…"}` : "";
  return `${type}${range}`;
}
