import { afterEach, describe, expect, it } from "vitest";
import { normaliseOperatorName } from "../../src/ledger/operatorName.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { testConfig } from "../support/testConfig.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("operator names: someone a person can read back, stored as one form", () => {
  it.each([
    ["U+200B zero width space", "\u200b"],
    ["U+2060 word joiner", "\u2060"],
    ["U+200D zero width joiner", "\u200d"],
    ["U+FEFF", "\ufeff"],
    ["U+00AD soft hyphen", "\u00ad"],
    ["bidi controls", "\u202e\u2066"],
    ["whitespace of every kind", " \t\u00a0\u3000\u2028"],
    ["controls", "\u0000\u0007"],
    ["a mix", " \u200b\u2060 \u200d "],
    ["empty", ""],
  ])("%s: no name", (_what, raw) => {
    expect(normaliseOperatorName(raw)).toBeUndefined();
  });

  it.each([
    ["plain", "ana", "ana"],
    ["surrounding space and invisibles dropped", " \u200bAna Lima\u2060 ", "Ana Lima"],
    ["NFC: e + combining acute is é", "Rene\u0301", "Ren\u00e9"],
    ["an emoji sequence keeps its joiner", "\u{1F469}\u200d\u{1F527}", "\u{1F469}\u200d\u{1F527}"],
    ["CJK", "\u5c71\u7530", "\u5c71\u7530"],
  ])("%s", (_what, raw, stored) => {
    expect(normaliseOperatorName(raw)).toBe(stored);
  });
});

describe("where operators name themselves", () => {
  it("confirm: an invisible name is refused by code and the joint stays quarantined; a name is stored in NFC", async () => {
    h = await createHarness({ arm: { behaviour: () => "stall_midway", motionMs: () => 50 } });
    const [r] = await h.executor.execute([{ id: "s", name: "move_joints", args: { positions: { wrist_1: 0.6 } } }], {
      deadlineMs: 10_000,
    });
    expect(r!.result.status).toBe("unknown");
    const actionId = (r!.result as { action_id: string }).action_id;
    for (const invisible of ["\u200b", "\u2060", "\u200d", " \u200b "]) {
      expect(() => h!.executor.confirm(actionId, { outcome: "not_moved", operator: invisible })).toThrow(
        expect.objectContaining({ code: "ARMB_ERR_OPERATOR_REQUIRED" }),
      );
      expect(() => h!.ledger.confirm(actionId, { outcome: "not_moved", operator: invisible })).toThrow(
        expect.objectContaining({ code: "ARMB_ERR_OPERATOR_REQUIRED" }),
      );
    }
    expect(h.ledger.get(actionId)?.state).toBe("unknown");
    expect(h.executor.quarantine.blocking(["joint:wrist_1"]).actionIds).toEqual([actionId]);
    const row = h.executor.confirm(actionId, { outcome: "not_moved", operator: "Rene\u0301" });
    expect(row.operator).toBe("Ren\u00e9");
    expect(h.ledger.get(actionId)?.operator).toBe("Ren\u00e9");
  });

  it("approve / decline: an invisible name is refused and nothing is sent; a name is recorded in NFC", async () => {
    h = await createHarness({ config: testConfig({ approval: { move_joints: "always" } }) });
    const run = h.executor.execute([{ id: "a", name: "move_joints", args: { positions: { wrist_1: 0.4 } } }], {
      deadlineMs: 10_000,
    });
    while (h.executor.approvals.pendingCount === 0) await new Promise((r) => setTimeout(r, 5));
    const [req] = h.executor.approvals.pending();
    for (const invisible of ["\u200b", "\u2060", "\u200d"]) {
      expect(() => h!.executor.approvals.approve(req!.id, { operator: invisible })).toThrow(
        expect.objectContaining({ code: "ARMB_ERR_APPROVAL_OPERATOR_REQUIRED" }),
      );
      expect(() => h!.executor.approvals.decline(req!.id, { operator: invisible })).toThrow(
        expect.objectContaining({ code: "ARMB_ERR_APPROVAL_OPERATOR_REQUIRED" }),
      );
    }
    expect(h.arm.sent).toHaveLength(0);
    expect(h.executor.approvals.approve(req!.id, { operator: "Jose\u0301" }).operator).toBe("Jos\u00e9");
    expect((await run)[0]!.result.status).toBe("done");
  });
});
