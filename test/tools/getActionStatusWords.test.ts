import { ACTION_STATES } from "../../src/wire/vocabulary.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { testConfig } from "../support/testConfig.js";

const README = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
/** The statuses a ledger row can read as for a model (resultFromRow), which the README's results table defines. */
const ROW_STATUSES = ["done", "stopped", "failed", "unknown"] as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("get_action_status says the same words as the README", () => {
  it("its description and the README's row name every ledger state and the statuses a model reads", () => {
    const declaration = createDefaultTools(testConfig())
      .declarations()
      .find((d) => d.name === "get_action_status")!;
    const row = README.split("\n").find((l) => l.startsWith("| `get_action_status`")) ?? "";
    for (const state of ACTION_STATES) {
      expect(declaration.description, `description names ${state}`).toMatch(new RegExp(`\\b${state}\\b`));
      expect(row, `README names ${state}`).toContain(`\`${state}\``);
    }
    for (const status of ROW_STATUSES) {
      expect(declaration.description).toMatch(new RegExp(`\\b${status}\\b`));
      expect(README).toMatch(new RegExp(`^\\| \`${status}\` \\|`, "m"));
    }
  });

  it("answers the status a result gives now beside the ledger's state", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    const [moved] = await h.executor.execute([{ id: "m", name: "move_joints", args: { positions: { elbow: 0.8 } } }]);
    const actionId = moved!.result.status === "done" ? moved!.result.action_id : "";
    const [status] = await h.executor.execute([{ id: "q", name: "get_action_status", args: { action_id: actionId } }]);
    expect(status!.result.status === "done" && status!.result.output).toMatchObject({
      found: true,
      status: "done",
      state: "done",
    });
    expect(h.arm.effects.map((e) => e.axes)).toEqual([["elbow"]]);
  });
});
