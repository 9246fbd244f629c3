import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI, runCli } from "./processes.js";

// Argument checks that fail before any request: no serve needed (dist/ only).
const built = existsSync(CLI);
if (!built) console.warn(`skipping operator command checks: ${CLI} is missing; run \`npm run build\` first`);

describe.skipIf(!built)("operator commands' command lines (needs dist: npm run build)", () => {
  it.each([
    [
      ["confirm", "act_x", "--outcome", "half", "--operator", "ana"],
      /--outcome must be one of reached, partial, not_moved, done, not_done/,
    ],
    [["confirm", "act_x", "--outcome", "partial"], /--operator NAME is required/],
    [["approve"], /name the request/],
    [["decline", "apr_x"], /--operator NAME is required/],
    [["approve", "apr_x", "--operator", "\u200b"], /--operator NAME is required.*visible/],
    [
      ["confirm", "act_x", "--outcome", "partial", "--operator", "\u2060\u200d"],
      /--operator NAME is required.*visible/,
    ],
    [["recover", "--operator", " \u200b "], /--operator NAME is required.*visible/],
    [["approvals", "extra"], /unexpected argument/],
  ])("armbridge %j exits 2 with a usage error", async (args, words) => {
    const r = await runCli(args, { ARMBRIDGE_URL: "http://127.0.0.1:9", ARMBRIDGE_TOKEN: "t" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(words);
  });

  it("lists approvals, approve and decline in the top help, and the new outcomes in confirm's", async () => {
    const top = await runCli(["--help"]);
    for (const c of ["approvals", "approve", "decline"]) expect(top.stdout).toMatch(new RegExp(`^  ${c} +\\S`, "m"));
    const confirm = await runCli(["confirm", "--help"]);
    expect(confirm.stdout).toContain("--outcome reached|partial|not_moved");
  });
});
