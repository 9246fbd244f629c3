import { readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_HELP } from "../../../src/surfaces/cli/mcp/mcpCommand.js";
import { ROOT } from "./startSimProcess.js";

/**
 * An MCP host starts a stdio server from its own working directory, outside
 * this checkout: there `npx armbridge` asks the public npm registry for a
 * package of that name (and, with no terminal to ask, runs whatever is
 * published under it). Every host entry we print or document names this
 * install explicitly: `node` and the absolute path of the built CLI.
 */
const BUILT_CLI = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");

interface HostEntry {
  readonly command: string;
  readonly args?: readonly string[];
}

/** Every `{"command": …}` object in a text: the JSON blocks of a Markdown file, or the lines of a help text. */
function hostEntries(text: string): HostEntry[] {
  const entries: HostEntry[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      if (typeof (value as { command?: unknown }).command === "string") entries.push(value as HostEntry);
      Object.values(value).forEach(visit);
    }
  };
  // Only blocks that hold a command: other JSON examples in the docs abbreviate with "…".
  const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? "")
    .filter((b) => b.includes('"command"'));
  const lines = text.split("\n").filter((l) => l.trim().startsWith('{"command"'));
  for (const source of [...blocks, ...lines]) visit(JSON.parse(source));
  return entries;
}

function expectExplicitInstall(entry: HostEntry, where: string): void {
  expect(entry.command, `${where}: ${JSON.stringify(entry)}`).not.toMatch(/(^|\/)npx$/);
  expect(entry.command, `${where}: ${JSON.stringify(entry)}`).toBe("node");
  const cli = entry.args?.[0] ?? "";
  expect(isAbsolute(cli), `${where}: the CLI is named by an absolute path (${cli})`).toBe(true);
  expect(cli.endsWith("/dist/src/surfaces/cli/main.js"), `${where}: ${cli}`).toBe(true);
}

const markdown = (): { path: string; text: string }[] => [
  { path: "README.md", text: readFileSync(join(ROOT, "README.md"), "utf8") },
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => ({ path: `docs/${f}`, text: readFileSync(join(ROOT, "docs", f), "utf8") })),
];

describe("MCP host entries name the local install, never npx", () => {
  it("`armbridge mcp --help` prints entries with node and this install's own built CLI", () => {
    const entries = hostEntries(MCP_HELP);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const e of entries) {
      expectExplicitInstall(e, "mcp --help");
      expect(e.args?.[0]).toBe(BUILT_CLI);
    }
  });

  it("every host entry in the README and docs/ names node and an absolute path to the built CLI", () => {
    const found = markdown().flatMap(({ path, text }) => hostEntries(text).map((e) => ({ path, e })));
    expect(found.length).toBeGreaterThan(0);
    for (const { path, e } of found) expectExplicitInstall(e, path);
  });

  it("no document or launch file suggests a runner that fetches armbridge from the registry", () => {
    const launch = readdirSync(join(ROOT, "launch"))
      .filter((f) => /\.(py|xml)$/.test(f))
      .map((f) => ({ path: `launch/${f}`, text: readFileSync(join(ROOT, "launch", f), "utf8") }));
    for (const { path, text } of [...markdown(), ...launch, { path: "mcp --help", text: MCP_HELP }]) {
      expect(text, path).not.toMatch(/"command":\s*"npx"/);
      expect(text, path).not.toMatch(/launch_prefix:=npx|e\.g\. '?npx'?\)|npm install -g armbridge/);
    }
  });
});
