import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/wire/routes.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TABLE = "src/wire/routes.ts";

/** The trees that must reach a route through the wire table only. */
const SCOPE = ["src", "console", "bench"];

/** The first segment of every route's path ("/v1", "/healthz", "/mcp", …), read from the table itself. */
const FIRST_SEGMENTS = [...new Set(Object.values(ROUTES).map((r) => r.path.split("/").slice(0, 2).join("/")))];

/** A string or template literal that begins with one of them: `"/v1/…"`, `'/healthz'`, `` `/mcp` ``. */
const PATH_LITERAL = new RegExp(
  `["'\`](?:${FIRST_SEGMENTS.map((s) => s.replace(/[/]/g, "\\/")).join("|")})(?![A-Za-z0-9_-])`,
);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|js|mjs)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** `file:line` of every route path literal outside the table; lines of comment prose are not code. */
function pathLiteralsOutsideTable(dirs: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of dirs.flatMap(sourceFiles)) {
    if (file === TABLE) continue;
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        const code = line.trim();
        if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return;
        if (PATH_LITERAL.test(line)) found.push(`${file}:${i + 1}: ${code}`);
      });
  }
  return found;
}

describe("route paths are written once, in the wire table", () => {
  it("finds the table's own first segments", () => {
    expect(FIRST_SEGMENTS).toEqual(expect.arrayContaining(["/v1", "/healthz", "/console", "/metrics", "/mcp"]));
  });

  it("has no route path literal in src, console or bench outside the table", () => {
    expect(pathLiteralsOutsideTable(SCOPE)).toEqual([]);
  });
});
