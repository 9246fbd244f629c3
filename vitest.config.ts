import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn the simulator and the bridge as real processes;
    // two cores are shared by all of them, so keep worker count modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/SummaryReporter.ts"],
  },
});
