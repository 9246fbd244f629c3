import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import { describeCallAnswer } from "../../src/surfaces/cli/callCommand.js";
import { toFunctionResponse } from "../../src/surfaces/toFunctionResponse.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { testConfig } from "../support/testConfig.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a value out of range is said with the value, the key and the bound, once per issue", () => {
  it("a model's arguments: each issue names its key, the value given and the bound; nothing is sent", async () => {
    h = await createHarness({ config: testConfig() });
    const [r] = await h.executor.execute([
      { id: "a", name: "move_joints", args: { positions: { elbow: 9 }, speed: -1 } },
    ]);
    expect(r!.result.status).toBe("rejected");
    const issues = r!.result.status === "rejected" ? r!.result.issues : [];
    expect(issues).toEqual([
      { path: "positions.elbow", code: "too_big", message: "9 is above the largest allowed, 2.6" },
      {
        path: "speed",
        code: "too_small",
        message: expect.stringMatching(/^-1 is below the (smallest allowed|limit), 0/),
      },
    ]);
    expect(r!.result.message).not.toMatch(/Too big|Too small|expected number/);
    expect(h.arm.sent).toEqual([]);
  });

  it("`armbridge call` prints each issue once, as one coded line naming the key", async () => {
    h = await createHarness({ config: testConfig() });
    const [r] = await h.executor.execute([{ id: "a", name: "set_gripper", args: { position: 3 } }]);
    const text = describeCallAnswer(toFunctionResponse(r!));
    expect(text.split("\n")).toEqual([
      "set_gripper a: REJECTED",
      "  set_gripper was rejected before anything was sent:",
      "  Code: ARMB_ERR_ARGS_INVALID",
      "  position [too_big]: 3 is above the largest allowed, 1",
    ]);
  });

  it("a config value out of range names its key, the value and the bound", () => {
    const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, unknown>;
    const bad = {
      ...raw,
      arm: {
        ...(raw.arm as object),
        urdf: join(dirname(DEFAULT_CONFIG_PATH), String((raw.arm as { urdf: string }).urdf)),
      },
      approval_timeout_s: -5,
    };
    let message = "";
    try {
      parseConfig(bad, "arm.yaml");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("approval_timeout_s");
    // Given in seconds under its old name: said under that name, with the value it was read as.
    expect(message).toContain("from -5 s");
    expect(message).toMatch(/-5000 is below the (smallest allowed|limit)/);
    expect(message).not.toMatch(/Too small/);
  });
});
