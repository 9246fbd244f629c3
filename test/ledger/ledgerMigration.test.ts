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
import { writeV2Ledger } from "../fixtures/ledgerV2.js";

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

describe("the ledger schema migration (a ledger file from the landed version 1, through 2, to 3)", () => {
  it("opens a version-1 file, upgrades it in place to the current version, and keeps every row as it was", () => {
    const path = v1File();
    const ledger = IntentLedger.open(path);
    try {
      expect(SCHEMA_VERSION).toBe(3);
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
      expect(meta.schema_version).toBe("3");
      expect(meta.migrated_at).toMatch(/\(from 1, 6 rows\)$/);
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql;
      expect(sql).toContain("'confirmed_partial'");
      const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((i) => i.name);
      expect(indexes.sort()).toEqual(["actions_client", "actions_created", "actions_state"]);
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

/** Columns (name, type, not null, default, primary key) and indexes of the actions table: the shape a file has, however it got it. */
function shapeOf(path: string): { columns: unknown[]; indexes: unknown[] } {
  const db = new Database(path, { readonly: true });
  try {
    const columns = (db.pragma("table_info(actions)") as { name: string; type: string; notnull: number; dflt_value: unknown; pk: number }[]).map((c) => [c.name, c.type, c.notnull, c.dflt_value, c.pk]);
    const indexes = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string; sql: string }[]).map((i) => [i.name, i.sql]);
    return { columns, indexes };
  } finally {
    db.close();
  }
}

describe("the ledger schema migration to version 3 (a ledger file from the landed version 2): who asked", () => {
  function v2File(): string {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v2-"));
    dirs.push(dir);
    const path = join(dir, "ledger.sqlite");
    writeV2Ledger(path, [
      { action_id: "act_done", state: "done", created_at: 2000 },
      { action_id: "act_unknown", state: "unknown", resources: ["joint:wrist_2"], created_at: 2001 },
      { action_id: "act_partial", state: "confirmed_partial", operator: "ana", operator_outcome: "partial", created_at: 2002 },
    ]);
    return path;
  }

  it("upgrades in place: every row kept as it was, with no client (not recorded then), and new rows record theirs", () => {
    const path = v2File();
    const ledger = IntentLedger.open(path);
    try {
      expect(ledger.list({ limit: 10 }).map((r) => [r.actionId, r.state, r.client])).toEqual([
        ["act_partial", "confirmed_partial", undefined],
        ["act_unknown", "unknown", undefined],
        ["act_done", "done", undefined],
      ]);
      expect(ledger.get("act_partial")).toMatchObject({ operator: "ana", operatorOutcome: "partial", message: "v2 words for confirmed_partial", command: { from: { elbow: 0 } } });
      // The quarantine still reads from the upgraded file.
      expect(ledger.inState("unknown").map((r) => r.resources)).toEqual([["joint:wrist_2"]]);
      const agent = { kind: "agent", name: "gemini-2.5-flash", session: "s1" } as const;
      ledger.recordIntent({ actionId: "act_new", callId: "c_new", tool: "move_joints", args: {}, argsHash: "h", resources: ["joint:elbow"], command: { actionId: "act_new", targets: { elbow: 1 }, speed: 0.5 }, client: agent }, 3000);
      ledger.recordIntent({ actionId: "act_mcp", callId: "c_mcp", tool: "move_joints", args: {}, argsHash: "h2", resources: ["joint:elbow"], command: { actionId: "act_mcp", targets: { elbow: 0 }, speed: 0.5 }, client: { kind: "mcp", name: "inspector 1.0" } }, 3001);
      expect(ledger.get("act_new")?.client).toEqual(agent);
      expect(ledger.list({ client: { name: "gemini-2.5-flash" } }).map((r) => r.actionId)).toEqual(["act_new"]);
      expect(ledger.list({ client: { kind: "mcp" } }).map((r) => r.actionId)).toEqual(["act_mcp"]);
      expect(ledger.list({ client: { kind: "agent", session: "other" } })).toEqual([]);
      expect(ledger.clients().map((c) => [c.client, c.actions])).toEqual([
        [{ kind: "mcp", name: "inspector 1.0" }, 1],
        [agent, 1],
      ]);
    } finally {
      ledger.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const meta = Object.fromEntries((db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [m.key, m.value]));
      expect(meta.schema_version).toBe("3");
      expect(meta.migrated_at).toMatch(/\(from 2, 3 rows\)$/);
    } finally {
      db.close();
    }
  });

  it("a file upgraded from version 1 or 2 has the same columns and indexes as a fresh one", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-fresh-"));
    dirs.push(dir);
    const fresh = join(dir, "fresh.sqlite");
    IntentLedger.open(fresh).close();
    const fromV2 = v2File();
    IntentLedger.open(fromV2).close();
    const fromV1 = v1File();
    IntentLedger.open(fromV1).close();
    const expected = shapeOf(fresh);
    expect(expected.columns.map((c) => (c as unknown[])[0])).toContain("client_session");
    expect(shapeOf(fromV2)).toEqual(expected);
    expect(shapeOf(fromV1)).toEqual(expected);
  });

  it("a failed upgrade leaves the version-2 file as it was (one transaction)", () => {
    const path = v2File();
    // A column the upgrade is about to add already exists: the step fails midway and must roll back whole.
    const db = new Database(path);
    db.exec("ALTER TABLE actions ADD COLUMN client_session TEXT");
    db.close();
    expect(() => IntentLedger.open(path)).toThrow();
    const check = new Database(path, { readonly: true });
    try {
      expect((check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe("2");
      const columns = (check.pragma("table_info(actions)") as { name: string }[]).map((c) => c.name);
      expect(columns).not.toContain("client_kind");
      expect((check.prepare("SELECT COUNT(*) AS n FROM actions").get() as { n: number }).n).toBe(3);
    } finally {
      check.close();
    }
  });
});
