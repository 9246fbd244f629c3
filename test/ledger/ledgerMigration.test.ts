import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { describeForOperator } from "../../src/executor/describeForOperator.js";
import { resultFromRow } from "../../src/executor/resultFromRow.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { SCHEMA_VERSION } from "../../src/ledger/ledgerSchema.js";
import { writeV1Ledger } from "../fixtures/ledgerV1.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function v1File(): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v1-"));
  dirs.push(dir);
  const path = join(dir, "ledger.sqlite");
  writeV1Ledger(path, [
    { action_id: "act_started", state: "started", created_at: 1000 },
    { action_id: "act_done", state: "done", created_at: 1001 },
    { action_id: "act_failed", state: "failed", created_at: 1002 },
    { action_id: "act_unknown", state: "unknown", resources: ["joint:wrist_2"], created_at: 1003 },
    { action_id: "act_cdone", state: "confirmed_done", operator: "ada", created_at: 1004 },
    { action_id: "act_cnot", state: "confirmed_not_done", operator: "ada", created_at: 1005 },
  ]);
  return path;
}

describe("the ledger schema migration (a ledger file from the landed version 1)", () => {
  it("opens a version-1 file, upgrades it in place to the current version, and keeps every row as it was", () => {
    const path = v1File();
    const ledger = IntentLedger.open(path);
    try {
      expect(SCHEMA_VERSION).toBe(2);
      expect(ledger.list({ limit: 100 }).map((r) => [r.actionId, r.state])).toEqual([
        ["act_cnot", "confirmed_not_done"],
        ["act_cdone", "confirmed_done"],
        ["act_unknown", "unknown"],
        ["act_failed", "failed"],
        ["act_done", "done"],
        ["act_started", "started"],
      ]);
      expect(ledger.get("act_cnot")).toMatchObject({ operator: "ada", settledBy: "operator", settledAt: 1015, confirmedAt: 1025, operatorOutcome: undefined, observed: undefined });
      expect(ledger.armBinding()).toMatchObject({ name: "sim-arm" });
      // Old confirmed rows read with the new words, their outcome derived from the state.
      expect(describeForOperator(ledger.mustGet("act_cnot"))).toBe("ada confirmed it did not move.");
      expect(resultFromRow(ledger.mustGet("act_cdone")).status).toBe("done");
      // The new state and columns work on the upgraded file.
      const row = ledger.confirm("act_unknown", { outcome: "partial", operator: "ana", note: "half way", observed: { pose: { wrist_2: 0.45 }, stampMs: 2000 } }, 2001);
      expect(row).toMatchObject({ state: "confirmed_partial", operatorOutcome: "partial", observed: { pose: { wrist_2: 0.45 }, stampMs: 2000 }, operatorNote: "half way" });
    } finally {
      ledger.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const meta = Object.fromEntries((db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [m.key, m.value]));
      expect(meta.schema_version).toBe("2");
      expect(meta.migrated_at).toMatch(/\(from 1, 6 rows\)$/);
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql;
      expect(sql).toContain("'confirmed_partial'");
      const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((i) => i.name);
      expect(indexes.sort()).toEqual(["actions_created", "actions_state"]);
    } finally {
      db.close();
    }
    // Opened again: already current, nothing to do, the confirmation is still there.
    const again = IntentLedger.open(path);
    try {
      expect(again.get("act_unknown")).toMatchObject({ state: "confirmed_partial", operator: "ana" });
      // The rebuilt table kept UNIQUE(call_id).
      expect(() => again.recordIntent({ actionId: "act_x", callId: "call_act_done", tool: "move_joints", args: {}, argsHash: "x", resources: [], command: { actionId: "act_x", targets: {}, speed: 0.5 } })).toThrow(
        expect.objectContaining({ code: "ARMB_ERR_CALL_ID_REUSED" }),
      );
    } finally {
      again.close();
    }
  });

  it("a file with a version newer than this code knows is refused untouched (ARMB_ERR_LEDGER_VERSION)", () => {
    const path = v1File();
    const db = new Database(path);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
    db.close();
    expect(() => IntentLedger.open(path)).toThrow(expect.objectContaining({ code: "ARMB_ERR_LEDGER_VERSION" }));
    const check = new Database(path, { readonly: true });
    expect((check.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql).not.toContain("confirmed_partial");
    check.close();
  });
});
