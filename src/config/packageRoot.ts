import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * The armbridge package folder. Code runs both from src/ (tests) and from
 * dist/src/ (the installed bins), so walk up to our package.json instead of
 * counting `..`s.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown };
      if (pkg.name === "armbridge") return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("armbridge package.json not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
