import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { configReference } from "../../src/config/configReference.js";
import { armConfigFile } from "../../src/config/armConfigFile.js";

/** docs/config.md is the schemas' own account of themselves: regenerate it (npm run docs:config) when a key changes. */
describe("docs/config.md", () => {
  const page = readFileSync(join(packageRoot(), "docs", "config.md"), "utf8");

  it("is what the schemas generate", () => {
    expect(page).toBe(configReference());
  });

  it("names every top-level key with its doc text", () => {
    for (const key of Object.keys(armConfigFile.shape)) expect(page).toContain(`| \`${key}\` |`);
    expect(page).toContain("| `approval_timeout_ms` | number | `120000` | ms |");
  });
});
