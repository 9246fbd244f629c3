import { afterEach, describe, expect, it } from "vitest";
import { fitHomography } from "../../src/geometry/fitHomography.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a quaternion whose length overflows is refused, not turned into the identity", () => {
  it("move_to_pose {orientation: 1e308 ×4}: rejected as invalid arguments, no ledger row, nothing sent (it used to move to the identity orientation)", async () => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const [r] = await h.executor.execute([
      {
        id: "q",
        name: "move_to_pose",
        args: { position: { x: -0.6, y: -0.4, z: 0 }, orientation: { x: 1e308, y: 1e308, z: 1e308, w: 1e308 } },
      },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID" });
    expect(JSON.stringify(r!.result)).toMatch(/overflows/);
    expect(h.ledger.findByCallId("q")).toBeUndefined();
    expect(h.arm.effects).toHaveLength(0);
  });

  it.each([
    ["zero", { x: 0, y: 0, z: 0, w: 0 }],
    ["too short to have a direction", { x: 1e-200, y: 0, z: 0, w: 1e-200 }],
  ])("a quaternion that is %s is refused the same way", async (_what, orientation) => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const [r] = await h.executor.execute([
      { id: "q", name: "move_to_pose", args: { position: { x: -0.45, y: -0.2, z: 0.3 }, orientation } },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID" });
    expect(h.arm.effects).toHaveLength(0);
  });

  it("a long but finite quaternion is only a direction: (1e200, 0, 0, 0) is roll π, as (1, 0, 0, 0) is", async () => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const [r] = await h.executor.execute([
      {
        id: "q",
        name: "move_to_pose",
        args: { position: { x: -0.45, y: -0.2, z: 0.3 }, orientation: { x: 1e200, y: 0, z: 0, w: 0 } },
      },
    ]);
    expect(r!.result.status).toBe("done");
    expect(h.arm.effects).toHaveLength(1);
  });
});

describe("a camera's table calibration with far-off (finite) table points keeps finite residuals", () => {
  it("points scaled by 1e200: the fit's RMS residual is a number, not Infinity (its sum of squares used to overflow)", () => {
    const image = [
      [100, 100],
      [900, 100],
      [900, 900],
      [100, 900],
      [500, 500],
    ] as const;
    const table = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
      [0.5, 0.4],
    ] as const;
    const fit = fitHomography(
      image.map((p, i) => ({ from: p, to: [table[i]![0] * 1e200, table[i]![1] * 1e200] as const })),
    );
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(Number.isFinite(fit.rmsResidual)).toBe(true);
    expect(Number.isFinite(fit.maxResidual)).toBe(true);
  });
});
