import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints, after vitest's own report: every skipped test by its full name
 * (each name says why it skips, e.g. "skipped without socat"), so a skip is
 * never silent in CI logs; then one plain closing line,
 * `tests: N passed, N failed, N skipped`, that any CI can read.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else if (state === "skipped")
          skipped.push(`${module.moduleId.replace(process.cwd() + "/", "")} > ${test.fullName}`);
      }
    }
    const lines: string[] = [];
    if (skipped.length > 0) {
      lines.push("", `${skipped.length} skipped test(s) — each name says why:`);
      for (const s of skipped) lines.push(`  skipped: ${s}`);
    }
    lines.push("", `tests: ${passed} passed, ${failed} failed, ${skipped.length} skipped`);
    process.stdout.write(lines.join("\n") + "\n");
  }
}
