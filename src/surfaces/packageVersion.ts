import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../config/packageRoot.js";

/** The `version` of armbridge's own package.json (the one an install ships); "unknown" when it cannot be read. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}
