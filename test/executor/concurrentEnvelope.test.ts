import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { framesOnly, testConfig } from "../support/testConfig.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The sim arm under a 0.95 m ceiling: shoulder_lift −1 and elbow −1 from home are each fine, together not. */
// Frames only: these numbers were chosen for link frames; the volumes have their own tests.
const config: ArmConfig = {
  ...framesOnly(testConfig()),
  workspace: {
    frame: undefined,
    keepIn: { min: [-0.85, -0.85, -0.2], max: [0.85, 0.85, 0.95] },
    floorZ: -0.15,
    maxStepM: undefined,
    keepOut: [],
    allowedContacts: [],
  },
};
const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));

describe("plan admission with a motion in flight on other joints (one admission step, through the executor)", () => {
  it("B whose path is safe only while A stands still is rejected while A moves; the arm receives A alone", async () => {
    h = await createHarness({ config, arm: { motionMs: (c) => ("shoulder_lift" in c.targets ? 600 : 20) } });
    const a = h.executor.execute([
      { id: "a", name: "move_joints", args: { positions: { shoulder_lift: home.shoulder_lift! - 1 } } },
    ]);
    // A is admitted and sent before B is planned.
    while (h.arm.sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    const [b] = await h.executor.execute([
      { id: "b", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(b!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(JSON.stringify(b!.result)).toContain("in flight");
    const [ra] = await a;
    expect(ra!.result.status).toBe("done");
    expect(h.arm.sent.map((c) => Object.keys(c.targets))).toEqual([["shoulder_lift"]]);
  });

  it("B that is safe at every progress of A is admitted alongside it, and both run", async () => {
    h = await createHarness({ config, arm: { motionMs: (c) => ("shoulder_lift" in c.targets ? 400 : 20) } });
    const a = h.executor.execute([
      { id: "a", name: "move_joints", args: { positions: { shoulder_lift: home.shoulder_lift! - 0.3 } } },
    ]);
    while (h.arm.sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    const [b] = await h.executor.execute([{ id: "b", name: "move_joints", args: { positions: { wrist_3: 0.5 } } }]);
    expect(b!.result.status).toBe("done");
    expect((await a)[0]!.result.status).toBe("done");
    expect(h.arm.sent).toHaveLength(2);
  });

  it("once A has ended it no longer counts: the same B is judged from where A left the arm", async () => {
    h = await createHarness({ config, arm: { motionMs: () => 20 } });
    const [a] = await h.executor.execute([
      { id: "a", name: "move_joints", args: { positions: { wrist_1: home.wrist_1! + 0.2 } } },
    ]);
    expect(a!.result.status).toBe("done");
    const [b] = await h.executor.execute([
      { id: "b", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(b!.result.status).toBe("done");
  });
});
