import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

/**
 * On every path that settles a motion by looking at the arm, a pose at the
 * target releases nothing until the arm has accounted for the action id (a record, or its answer to a void request). Ground truth is
 * the FakeArm's own record of each id: "unknown" there means a delayed copy
 * of the command could still start.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ELBOW_HOME = 1.0; // config/sim-arm.yaml
const query = async (id: string) =>
  (await h!.arm.queryAction(id, { voidIfUnknown: false, signal: AbortSignal.timeout(100) }))?.state;

describe("no verdict releases a joint while the arm could still start the action", () => {
  it("a lost command to where the joint already is: voided first, then done as 'the command never ran'", async () => {
    h = await createHarness({ arm: { behaviour: () => "drop" } });
    const [r] = await h.executor.execute(
      [{ id: "c1", name: "move_joints", args: { positions: { elbow: ELBOW_HOME } } }],
      { deadlineMs: 40 },
    );
    const result = r!.result;
    expect(result.status).toBe("done");
    expect(result.message).toMatch(/never ran/);
    expect(result.message).not.toMatch(/completed|went on/);
    const id = result.status === "done" ? result.action_id! : "";
    expect(await query(id)).toBe("voided");
    expect(h.ledger.get(id)?.evidence?.record?.state).toBe("voided");
    expect(h.arm.effects).toHaveLength(0);
  });

  it("an arm that cannot be asked: the pose alone settles nothing, the call is unknown and the joint held", async () => {
    h = await createHarness({ arm: { behaviour: () => "drop", answersQueries: false } });
    const [r] = await h.executor.execute(
      [{ id: "c1", name: "move_joints", args: { positions: { elbow: ELBOW_HOME } } }],
      { deadlineMs: 40 },
    );
    expect(r!.result.status).toBe("unknown");
    expect([...h.executor.quarantine.byResource().keys()]).toEqual(["joint:elbow"]);
  });

  it("start-up reconciliation voids before it judges by the pose", async () => {
    const ledger = IntentLedger.open(":memory:");
    h = await createHarness({ arm: { behaviour: () => "drop" } });
    // A row left `started` by a crash, its command never delivered; the elbow already at its target.
    const command = { actionId: "act_lost", targets: { elbow: ELBOW_HOME }, speed: 0.5 };
    await ledger.recordIntentDurably({
      actionId: command.actionId,
      callId: "c-crash",
      tool: "move_joints",
      args: { positions: { elbow: ELBOW_HOME } },
      argsHash: "x",
      resources: ["joint:elbow"],
      command,
      armIncarnation: h.arm.identity.incarnation(),
    });
    const next = composeExecutor({
      config: h.config,
      registry: createDefaultTools(h.config),
      transport: h.arm,
      ledger,
    });
    try {
      const [row] = await next.reconcile();
      expect(row).toMatchObject({ actionId: "act_lost", state: "done", settledBy: "observation" });
      expect(row!.message).toMatch(/never ran/);
      expect(await query("act_lost")).toBe("voided");
    } finally {
      next.close();
      ledger.close();
    }
  });

  it("start-up reconciliation with an arm that cannot be asked leaves the action unknown, however right the pose looks", async () => {
    const ledger = IntentLedger.open(":memory:");
    h = await createHarness({ arm: { behaviour: () => "drop", answersQueries: false } });
    const command = { actionId: "act_lost", targets: { elbow: ELBOW_HOME }, speed: 0.5 };
    await ledger.recordIntentDurably({
      actionId: command.actionId,
      callId: "c-crash",
      tool: "move_joints",
      args: { positions: { elbow: ELBOW_HOME } },
      argsHash: "x",
      resources: ["joint:elbow"],
      command,
      armIncarnation: h.arm.identity.incarnation(),
    });
    const next = composeExecutor({
      config: h.config,
      registry: createDefaultTools(h.config),
      transport: h.arm,
      ledger,
    });
    try {
      const [row] = await next.reconcile();
      expect(row?.state).toBe("unknown");
      expect(next.quarantine.byResource().has("joint:elbow")).toBe(true);
    } finally {
      next.close();
      ledger.close();
    }
  });
});
