// Writes docs/errors.md's table of codes from the error registry (src/errors.ts),
// from the build: `npm run docs:errors` compiles first. test/errors.test.ts fails
// until the page is written again after a registry change.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withErrorTable } from "../dist/src/errorsDoc.js";

const page = join(import.meta.dirname, "..", "docs", "errors.md");
const before = readFileSync(page, "utf8");
const after = withErrorTable(before);
if (after === before) process.stdout.write("docs/errors.md is up to date\n");
else {
  writeFileSync(page, after);
  process.stdout.write("docs/errors.md written from src/errors.ts\n");
}
