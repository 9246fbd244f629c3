import { createHash } from "node:crypto";
import { canonicalJson } from "./canonicalJson.js";

/** What makes two calls "the same call": the tool and its parsed arguments, key order ignored. */
export function hashArgs(tool: string, args: unknown): string {
  return createHash("sha256").update(canonicalJson({ tool, args })).digest("hex");
}
