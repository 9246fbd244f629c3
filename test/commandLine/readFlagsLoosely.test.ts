import { describe, expect, it } from "vitest";
import { parseFlags, readFlagsLoosely } from "../../src/commandLine/parseFlags.js";

const SCHEMA = {
  url: { type: "string" },
  json: { type: "boolean" },
  joint: { type: "string", multiple: true },
} as const;

describe("readFlagsLoosely: what a command line that does not parse still says", () => {
  it("keeps the schema's flags given with a value of their type, and drops unknown flags and stray words", () => {
    const argv = ["--bogus", "--url", "http://127.0.0.1:1", "stray", "--json", "--joint", "elbow"];
    expect(parseFlags(argv, SCHEMA, "no positionals").ok).toBe(false);
    expect(readFlagsLoosely(argv, SCHEMA)).toEqual({ url: "http://127.0.0.1:1", json: true, joint: ["elbow"] });
  });

  it("drops a value-flag left without its value rather than guess one", () => {
    expect(readFlagsLoosely(["--json", "--url"], SCHEMA)).toEqual({ json: true });
  });
});
