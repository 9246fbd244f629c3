import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close().catch(() => undefined);
  h = undefined;
});

describe("executor: internal faults and shutdown never reject, never lie", () => {
  it("a ledger that cannot record the intent: the call fails with nothing sent, and execute resolves", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    h.ledger.close(); // every write now throws
    const [r] = await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.4 } } }]);
    expect(r!.result).toMatchObject({ status: "failed", settled_by: "none" });
    expect(r!.result.message).toMatch(/before anything was sent/);
    expect(h.arm.sent).toHaveLength(0);
  });

  it("a ledger that fails after the command left: the call is unknown and its joint held, not failed", async () => {
    h = await createHarness({ arm: { motionMs: () => 80 } });
    const ledger = h.ledger;
    const pending = h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.4 } } }]);
    // Close the ledger once the motion is under way (the intent is already durable).
    while (h.arm.sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    ledger.close();
    const [r] = await pending;
    expect(r!.result.status).toBe("unknown");
    expect([...h.executor.quarantine.byResource().keys()]).toEqual(["joint:elbow"]);
    expect(h.arm.sent).toHaveLength(1);
  });

  it("shutting down mid-motion ends the wait at once, leaves the row started, and the next start reconciles it from the arm", async () => {
    const ledgerPath = join(mkdtempSync(join(tmpdir(), "armbridge-shutdown-")), "ledger.sqlite");
    h = await createHarness({ arm: { motionMs: () => 600 }, ledgerPath });
    const pending = h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.4 } } }], {
      deadlineMs: 10_000,
    });
    while (h.arm.sent.length === 0) await new Promise((r) => setTimeout(r, 5));
    h.executor.close();
    const [r] = await pending;
    // Resolved by the shutdown while the motion was still running (not by its end, nor the 10 s deadline).
    expect(h.arm.effects[0]!.endedAt).toBeUndefined();
    expect(r!.result.status).toBe("unknown");
    expect(r!.result.message).toMatch(/checked against the arm when the bridge starts again/);
    const actionId = r!.result.status === "unknown" ? r!.result.action_id! : "";
    expect(h.ledger.get(actionId)?.state).toBe("started");

    // The arm (still the same FakeArm, its motion going on) is checked by the next executor.
    h.ledger.close();
    const ledger = IntentLedger.open(ledgerPath);
    const next = composeExecutor({
      config: h.config,
      registry: createDefaultTools(h.config),
      transport: h.arm,
      ledger,
    });
    try {
      const [row] = await next.reconcile();
      expect(row).toMatchObject({ actionId, state: "done", settledBy: "observation" });
      expect(h.arm.sent).toHaveLength(1);
    } finally {
      next.close();
      ledger.close();
    }
  });
});
