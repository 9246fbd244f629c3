import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";

/** rclnodejs's ParameterType values (types/parameter.d.ts). */
export const PARAM = {
  NOT_SET: 0,
  BOOL: 1,
  INTEGER: 2,
  DOUBLE: 3,
  STRING: 4,
  BOOL_ARRAY: 6,
  INTEGER_ARRAY: 7,
  DOUBLE_ARRAY: 8,
  STRING_ARRAY: 9,
} as const;

/** rclnodejs's name for the rules that apply to every node. */
export const ALL_NODES = "/**";

export class ParameterDouble {
  readonly name: string;
  readonly type: number;
  readonly value: unknown;
  constructor(name: string, type: number, value?: unknown) {
    this.name = name;
    this.type = type;
    this.value = type === PARAM.INTEGER && value !== undefined ? BigInt(value as number) : value;
  }
}

/**
 * `--ros-args -p [node:]name:=value --params-file FILE [--]`, typed as rcl types
 * them (1 → INTEGER, 1.0 → DOUBLE). Every section of a params file is kept
 * under its key as written; which apply to a node is decided when it is made.
 */
export function parseRosArgs(argv: readonly string[], out: Map<string, Map<string, ParameterDouble>>): void {
  const rulesFor = (node: string): Map<string, ParameterDouble> => {
    let m = out.get(node);
    if (!m) out.set(node, (m = new Map()));
    return m;
  };
  let inRos = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--ros-args") inRos = true;
    else if (a === "--") inRos = false;
    else if (inRos && (a === "-p" || a === "--param")) {
      const spec = argv[++i] ?? "";
      const at = spec.indexOf(":=");
      if (at <= 0) throw new Error(`Couldn't parse parameter override rule: '${spec}'`);
      const key = spec.slice(0, at);
      const colon = key.indexOf(":");
      const node = colon > 0 ? key.slice(0, colon) : ALL_NODES;
      const name = colon > 0 ? key.slice(colon + 1) : key;
      rulesFor(node).set(name, typedParameter(name, parseDocument(spec.slice(at + 2), { intAsBigInt: true }).toJS()));
    } else if (inRos && a === "--params-file") {
      const doc = parseDocument(readFileSync(argv[++i] ?? "", "utf8"), { intAsBigInt: true }).toJS() as Record<
        string,
        { ros__parameters?: Record<string, unknown> }
      >;
      for (const [nodeKey, section] of Object.entries(doc ?? {}))
        flatten("", section.ros__parameters ?? {}, rulesFor(nodeKey));
    }
  }
}

function flatten(prefix: string, obj: Record<string, unknown>, out: Map<string, ParameterDouble>): void {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object" && !Array.isArray(v)) flatten(name, v as Record<string, unknown>, out);
    else out.set(name, typedParameter(name, v));
  }
}

/** A value typed as rcl types it: bigint → INTEGER, number → DOUBLE, and arrays by their elements. */
export function typedParameter(name: string, v: unknown): ParameterDouble {
  if (typeof v === "bigint") return new ParameterDouble(name, PARAM.INTEGER, v);
  if (typeof v === "number") return new ParameterDouble(name, PARAM.DOUBLE, v);
  if (typeof v === "boolean") return new ParameterDouble(name, PARAM.BOOL, v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === "string")) return new ParameterDouble(name, PARAM.STRING_ARRAY, v);
    if (v.every((x) => typeof x === "bigint")) return new ParameterDouble(name, PARAM.INTEGER_ARRAY, v);
    if (v.every((x) => typeof x === "number" || typeof x === "bigint"))
      return new ParameterDouble(name, PARAM.DOUBLE_ARRAY, v.map(Number));
    if (v.every((x) => typeof x === "boolean")) return new ParameterDouble(name, PARAM.BOOL_ARRAY, v);
  }
  return new ParameterDouble(name, PARAM.STRING, String(v));
}
