import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// Without --data a bridge keeps its ledger under $XDG_STATE_HOME/armbridge/<arm>:
// point it (for the tests and every process they spawn) at a throwaway folder,
// so no test ever writes into the real home directory.
const stateHome = mkdtempSync(join(tmpdir(), "armbridge-test-state-"));

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn the simulator and the bridge as real processes;
    // two cores are shared by all of them, so keep worker count modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/SummaryReporter.ts"],
    env: { XDG_STATE_HOME: stateHome },
  },
});
