import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { inFlightOfRow } from "../../src/executor/reconciliation/inFlightOfRow.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import type { RecordedCommand } from "../../src/ledger/RecordedCommand.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { FakeArm } from "../support/FakeArm.js";
import { framesOnly, testConfig } from "../support/testConfig.js";

/** The sim arm under a 0.95 m ceiling: shoulder_lift −1 and elbow −1 from home are each fine, together not. */
// Frames only: these numbers were chosen for link frames; the volumes have their own tests (test/safety/inFlightAfterRestart.test.ts runs the shipped arm, volumes included).
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
const limits = Object.fromEntries(config.arm.joints.map((j) => [j.name, j]));

let dir: string | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A ledger file holding one motion left `unknown` by an earlier process: `command` as that process recorded it. */
function ledgerWithUnknown(command: RecordedCommand, resources: string[]): string {
  dir = mkdtempSync(join(tmpdir(), "armb-inflight-ledger-"));
  const path = join(dir, "ledger.sqlite");
  const ledger = IntentLedger.open(path);
  ledger.recordIntent({
    actionId: "act_earlier",
    callId: "earlier",
    tool: "move_joints",
    args: {},
    argsHash: "h",
    resources,
    command,
  });
  ledger.settle("act_earlier", { state: "unknown", timedOut: true, settledBy: "none", message: "unknown" });
  ledger.close();
  return path;
}

async function executorOn(ledgerPath: string): Promise<{ executor: Executor; arm: FakeArm; ledger: IntentLedger }> {
  const arm = new FakeArm(config, { motionMs: () => 20 });
  await arm.open();
  const ledger = IntentLedger.open(ledgerPath);
  const executor = composeExecutor({ config, registry: createDefaultTools(config), transport: arm, ledger });
  cleanups.push(async () => {
    executor.close();
    await arm.close();
    ledger.close();
  });
  return { executor, arm, ledger };
}

describe("inFlightOfRow: the path a recorded motion may be anywhere along", () => {
  it("with the start recorded: one segment, from the start to the target", () => {
    const segments = inFlightOfRow(
      {
        actionId: "a",
        resources: ["joint:shoulder_lift"],
        command: { actionId: "a", targets: { shoulder_lift: 1 }, speed: 0.5, from: { ...home } },
      },
      config,
    );
    expect(segments).toEqual([
      { actionId: "a", from: { shoulder_lift: home.shoulder_lift }, to: { shoulder_lift: 1 } },
    ]);
  });

  it("without a recorded start (rows written before it was, or with no pose): each joint over its whole range", () => {
    const segments = inFlightOfRow(
      {
        actionId: "a",
        resources: ["joint:elbow", "joint:shoulder_lift"],
        command: { actionId: "a", targets: { shoulder_lift: 1, elbow: 0 }, speed: 0.5, from: null },
      },
      config,
    );
    expect(segments).toEqual([
      {
        actionId: "a",
        from: { shoulder_lift: limits.shoulder_lift!.min },
        to: { shoulder_lift: limits.shoulder_lift!.max },
      },
      { actionId: "a", from: { elbow: limits.elbow!.min }, to: { elbow: limits.elbow!.max } },
    ]);
  });

  it("a joint the row holds without a readable command (one the ledger could not read back) counts over its whole range; the gripper is not a chain joint", () => {
    const segments = inFlightOfRow(
      { actionId: "a", resources: ["gripper", "joint:wrist_1"], command: undefined },
      config,
    );
    expect(segments).toEqual([
      { actionId: "a", from: { wrist_1: limits.wrist_1!.min }, to: { wrist_1: limits.wrist_1!.max } },
    ]);
  });

  it("the whole-range segments refuse what the exact path would allow", () => {
    const exact = inFlightOfRow(
      {
        actionId: "a",
        resources: ["joint:shoulder_lift"],
        command: { actionId: "a", speed: 0.5, targets: { shoulder_lift: home.shoulder_lift! }, from: { ...home } },
      },
      config,
    );
    const unknownStart = inFlightOfRow(
      {
        actionId: "a",
        resources: ["joint:shoulder_lift"],
        command: { actionId: "a", speed: 0.5, targets: { shoulder_lift: home.shoulder_lift! } },
      },
      config,
    );
    expect(checkMotionEnvelope(config, home, { elbow: home.elbow! - 1 }, "move_joints", exact).ok).toBe(true);
    expect(checkMotionEnvelope(config, home, { elbow: home.elbow! - 1 }, "move_joints", unknownStart).ok).toBe(false);
  });
});

describe("an executor started on a ledger with an unknown motion counts it in flight", () => {
  it("a motion whose path could meet the unknown one's outside the envelope is rejected, nothing sent; after the operator confirms, it runs", async () => {
    const path = ledgerWithUnknown(
      { actionId: "act_earlier", targets: { shoulder_lift: home.shoulder_lift! - 1 }, speed: 0.5, from: { ...home } },
      ["joint:shoulder_lift"],
    );
    const { executor, arm } = await executorOn(path);
    const [b] = await executor.execute([
      { id: "b", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(b!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(JSON.stringify(b!.result)).toContain("in flight");
    // It never ends by itself: the refusal names it and sends the model to the operator, not round a retry loop.
    const said = b!.result.status === "rejected" ? b!.result.issues.map((i) => i.message).join(" ") : "";
    expect(said).toContain(
      "action act_earlier (shoulder_lift) has an unknown outcome and waits for an operator's confirmation",
    );
    expect(said).toContain("ask the operator to confirm what the arm did");
    expect(said).not.toContain("retry when they end");
    expect(arm.sent).toEqual([]);
    // A motion clear of it at every progress of the unknown one is admitted.
    const [c] = await executor.execute([{ id: "c", name: "move_joints", args: { positions: { wrist_3: 0.5 } } }]);
    expect(c!.result.status).toBe("done");

    executor.confirm("act_earlier", { outcome: "not_moved", operator: "tester" });
    const [d] = await executor.execute([
      { id: "d", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(d!.result.status).toBe("done");
  });

  it("a row without a recorded start counts over its joints' whole range", async () => {
    // Its target is where the joint already is: exactly known, the motion could not reach the ceiling.
    const path = ledgerWithUnknown(
      { actionId: "act_earlier", targets: { shoulder_lift: home.shoulder_lift! }, speed: 0.5 },
      ["joint:shoulder_lift"],
    );
    const { executor, arm } = await executorOn(path);
    const [b] = await executor.execute([
      { id: "b", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(b!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(arm.sent).toEqual([]);
  });

  it("restoreInFlightFromLedger (for a link that came back) adds what the ledger holds once, and never duplicates a motion of this process", async () => {
    const path = ledgerWithUnknown(
      { actionId: "act_earlier", targets: { shoulder_lift: home.shoulder_lift! - 1 }, speed: 0.5, from: { ...home } },
      ["joint:shoulder_lift"],
    );
    const { executor } = await executorOn(path);
    // Restored at construction already.
    expect(executor.restoreInFlightFromLedger()).toEqual([]);
    executor.confirm("act_earlier", { outcome: "reached", operator: "tester" });
    // Confirmed rows are not restored again.
    expect(executor.restoreInFlightFromLedger()).toEqual([]);
    const [b] = await executor.execute([
      { id: "b", name: "move_joints", args: { positions: { elbow: home.elbow! - 1 } } },
    ]);
    expect(b!.result.status).toBe("done");
  });
});
