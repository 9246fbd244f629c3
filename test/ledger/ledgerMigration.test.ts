import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { describeForOperator } from "../../src/executor/operator/describeForOperator.js";
import { resultFromRow } from "../../src/executor/calls/resultFromRow.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { SCHEMA_VERSION } from "../../src/ledger/ledgerSchema.js";
import { writeV1Ledger } from "../fixtures/ledgerV1.js";
import { writeV2Ledger } from "../fixtures/ledgerV2.js";
import { writeV3Ledger } from "../fixtures/ledgerV3.js";
import { writeV4Ledger } from "../fixtures/ledgerV4.js";

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

function v3File(): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v3-"));
  dirs.push(dir);
  const path = join(dir, "ledger.sqlite");
  writeV3Ledger(path, [
    {
      action_id: "act_done",
      state: "done",
      client: { kind: "agent", name: "gemini-2.5-flash", session: "s1" },
      created_at: 3000,
    },
    {
      action_id: "act_unknown",
      state: "unknown",
      resources: ["joint:wrist_2"],
      client: { kind: "mcp", name: "inspector 1.0" },
      created_at: 3001,
    },
    {
      action_id: "act_partial",
      state: "confirmed_partial",
      operator: "ana",
      operator_outcome: "partial",
      observed_pose: { elbow: 0.2 },
      observed_at: 3050,
      created_at: 3002,
    },
  ]);
  return path;
}

function v4File(): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v4-"));
  dirs.push(dir);
  const path = join(dir, "ledger.sqlite");
  writeV4Ledger(path, [
    {
      action_id: "act_done",
      state: "done",
      client: { kind: "agent", name: "gemini-2.5-flash", session: "s1" },
      created_at: 4000,
    },
    {
      action_id: "act_halted",
      state: "halted",
      operator: "ana",
      client: { kind: "cli", name: "armbridge call" },
      created_at: 4001,
    },
    { action_id: "act_unknown", state: "unknown", resources: ["joint:wrist_2"], created_at: 4002 },
  ]);
  return path;
}

describe("the ledger schema migration (a ledger file from the landed version 1, through every version, to the current one)", () => {
  it("opens a version-1 file, upgrades it in place to the current version, and keeps every row as it was", () => {
    const path = v1File();
    const ledger = IntentLedger.open(path);
    try {
      expect(SCHEMA_VERSION).toBe(5);
      expect(ledger.list({ limit: 100 }).map((r) => [r.actionId, r.state])).toEqual([
        ["act_cnot", "confirmed_not_done"],
        ["act_cdone", "confirmed_done"],
        ["act_unknown", "unknown"],
        ["act_failed", "failed"],
        ["act_done", "done"],
        ["act_started", "started"],
      ]);
      expect(ledger.get("act_cnot")).toMatchObject({
        operator: "ada",
        settledBy: "operator",
        settledAt: 1015,
        confirmedAt: 1025,
        operatorOutcome: undefined,
        observed: undefined,
      });
      expect(ledger.armBinding()).toMatchObject({ name: "sim-arm" });
      // Old confirmed rows read with the new words, their outcome derived from the state.
      expect(describeForOperator(ledger.mustGet("act_cnot"))).toBe("ada confirmed it did not move.");
      expect(resultFromRow(ledger.mustGet("act_cdone")).status).toBe("done");
      // The new state and columns work on the upgraded file.
      const row = ledger.confirm(
        "act_unknown",
        { outcome: "partial", operator: "ana", note: "half way", observed: { pose: { wrist_2: 0.45 }, stampMs: 2000 } },
        2001,
      );
      expect(row).toMatchObject({
        state: "confirmed_partial",
        operatorOutcome: "partial",
        observed: { pose: { wrist_2: 0.45 }, stampMs: 2000 },
        operatorNote: "half way",
      });
    } finally {
      ledger.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const meta = Object.fromEntries(
        (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [
          m.key,
          m.value,
        ]),
      );
      expect(meta.schema_version).toBe(String(SCHEMA_VERSION));
      expect(meta.migrated_at).toMatch(/\(from 1, 6 rows\)$/);
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql;
      expect(sql).toContain("'confirmed_partial'");
      const indexes = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' AND name NOT LIKE 'sqlite_%'",
          )
          .all() as { name: string }[]
      ).map((i) => i.name);
      expect(indexes.sort()).toEqual(["actions_client", "actions_created", "actions_state"]);
    } finally {
      db.close();
    }
    // Opened again: already current, nothing to do, the confirmation is still there.
    const again = IntentLedger.open(path);
    try {
      expect(again.get("act_unknown")).toMatchObject({ state: "confirmed_partial", operator: "ana" });
      // The rebuilt table kept UNIQUE(call_id).
      expect(() =>
        again.recordIntent({
          actionId: "act_x",
          callId: "call_act_done",
          tool: "move_joints",
          args: {},
          argsHash: "x",
          resources: [],
          command: { actionId: "act_x", targets: {}, speed: 0.5 },
        }),
      ).toThrow(expect.objectContaining({ code: "ARMB_ERR_CALL_ID_REUSED" }));
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
    expect(
      (check.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql,
    ).not.toContain("confirmed_partial");
    check.close();
  });

  it("opens a version-2 file (the landed shape), upgrades it through 3 to 4: rows kept, the halted state and the halts table work", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v2-"));
    dirs.push(dir);
    const path = join(dir, "ledger.sqlite");
    writeV2Ledger(path, [
      { action_id: "act_unknown", state: "unknown", resources: ["joint:wrist_2"], created_at: 2000 },
      {
        action_id: "act_partial",
        state: "confirmed_partial",
        resources: ["joint:wrist_2"],
        operator: "ana",
        operator_outcome: "partial",
        observed_pose: { wrist_2: 0.45 },
        observed_at: 3000,
        created_at: 3001,
      },
    ]);
    const ledger = IntentLedger.open(path);
    try {
      expect(ledger.get("act_partial")).toMatchObject({
        state: "confirmed_partial",
        operator: "ana",
        operatorOutcome: "partial",
        observed: { pose: { wrist_2: 0.45 }, stampMs: 3000 },
      });
      // A part-way stop reads as `stopped` now, with the pose it stopped at: never `failed`.
      expect(resultFromRow(ledger.mustGet("act_partial"))).toMatchObject({
        status: "stopped",
        pose: { wrist_2: 0.45 },
      });
      expect(ledger.openHalts()).toEqual([]);
      ledger.recordHalt({
        haltId: "halt_1",
        haltedAt: 4000,
        source: "console",
        operator: "ana",
        callId: undefined,
        axes: undefined,
        note: undefined,
      });
      ledger.answerHalt("halt_1", { confirmed: true, pose: { wrist_2: 0.6 } }, 4010);
      const row = ledger.settle(
        "act_unknown",
        {
          state: "halted",
          timedOut: false,
          settledBy: "operator",
          operator: "ana",
          message: "halted",
          evidence: { pose: { wrist_2: 0.6 } },
        },
        4020,
      );
      expect(row).toMatchObject({ state: "halted", operator: "ana", settledBy: "operator" });
      expect(resultFromRow(row)).toMatchObject({ status: "stopped", pose: { wrist_2: 0.6 } });
    } finally {
      ledger.close();
    }
    const again = IntentLedger.open(path);
    try {
      expect(again.openHalts()).toMatchObject([
        { haltId: "halt_1", confirmed: true, pose: { wrist_2: 0.6 }, operator: "ana" },
      ]);
      expect(again.releaseHalts({ operator: "bo" }, 5000)).toMatchObject([
        { haltId: "halt_1", releasedBy: "bo", releasedAt: 5000 },
      ]);
      expect(again.openHalts()).toEqual([]);
    } finally {
      again.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      expect((db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(
        String(SCHEMA_VERSION),
      );
      expect((db.prepare("SELECT value FROM meta WHERE key = 'migrated_at'").get() as { value: string }).value).toMatch(
        /\(from 2, 2 rows\)$/,
      );
    } finally {
      db.close();
    }
  });
});

/**
 * Columns (name, type, not null, default, primary key), indexes and the
 * states' CHECK of the actions table, and the halts table's columns and
 * indexes: the shape a file has, however it got it.
 */
function shapeOf(path: string): {
  columns: unknown[];
  indexes: unknown[];
  stateCheck: string | undefined;
  halts: unknown[];
  haltIndexes: unknown[];
} {
  const db = new Database(path, { readonly: true });
  try {
    const columnsOf = (table: string): unknown[] =>
      (
        db.pragma(`table_info(${table})`) as {
          name: string;
          type: string;
          notnull: number;
          dflt_value: unknown;
          pk: number;
        }[]
      ).map((c) => [c.name, c.type, c.notnull, c.dflt_value, c.pk]);
    const indexesOf = (table: string): unknown[] =>
      (
        db
          .prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name",
          )
          .all(table) as { name: string; sql: string }[]
      ).map((i) => [i.name, i.sql]);
    const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql;
    return {
      columns: columnsOf("actions"),
      indexes: indexesOf("actions"),
      stateCheck: /state\s+TEXT NOT NULL (CHECK \([^)]*\)\))/.exec(sql)?.[1],
      halts: columnsOf("halts"),
      haltIndexes: indexesOf("halts"),
    };
  } finally {
    db.close();
  }
}

describe("the ledger schema migration from version 2 (a ledger file from the landed version 2): who asked, then the halt latch", () => {
  function v2File(): string {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-v2-"));
    dirs.push(dir);
    const path = join(dir, "ledger.sqlite");
    writeV2Ledger(path, [
      { action_id: "act_done", state: "done", created_at: 2000 },
      { action_id: "act_unknown", state: "unknown", resources: ["joint:wrist_2"], created_at: 2001 },
      {
        action_id: "act_partial",
        state: "confirmed_partial",
        operator: "ana",
        operator_outcome: "partial",
        created_at: 2002,
      },
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
      expect(ledger.get("act_partial")).toMatchObject({
        operator: "ana",
        operatorOutcome: "partial",
        message: "v2 words for confirmed_partial",
        command: { from: { elbow: 0 } },
      });
      // The quarantine still reads from the upgraded file.
      expect(ledger.inState("unknown").map((r) => r.resources)).toEqual([["joint:wrist_2"]]);
      const agent = { kind: "agent", name: "gemini-2.5-flash", session: "s1" } as const;
      ledger.recordIntent(
        {
          actionId: "act_new",
          callId: "c_new",
          tool: "move_joints",
          args: {},
          argsHash: "h",
          resources: ["joint:elbow"],
          command: { actionId: "act_new", targets: { elbow: 1 }, speed: 0.5 },
          client: agent,
        },
        3000,
      );
      ledger.recordIntent(
        {
          actionId: "act_mcp",
          callId: "c_mcp",
          tool: "move_joints",
          args: {},
          argsHash: "h2",
          resources: ["joint:elbow"],
          command: { actionId: "act_mcp", targets: { elbow: 0 }, speed: 0.5 },
          client: { kind: "mcp", name: "inspector 1.0" },
        },
        3001,
      );
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
      const meta = Object.fromEntries(
        (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [
          m.key,
          m.value,
        ]),
      );
      expect(meta.schema_version).toBe(String(SCHEMA_VERSION));
      expect(meta.migrated_at).toMatch(/\(from 2, 3 rows\)$/);
    } finally {
      db.close();
    }
  });

  it("a file upgraded from version 1, 2, 3 or 4 has the same columns, indexes, states and halts table as a fresh one", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ledger-fresh-"));
    dirs.push(dir);
    const fresh = join(dir, "fresh.sqlite");
    IntentLedger.open(fresh).close();
    const fromV2 = v2File();
    IntentLedger.open(fromV2).close();
    const fromV1 = v1File();
    IntentLedger.open(fromV1).close();
    const fromV3 = v3File();
    IntentLedger.open(fromV3).close();
    const fromV4 = v4File();
    IntentLedger.open(fromV4).close();
    const expected = shapeOf(fresh);
    expect(expected.columns.map((c) => (c as unknown[])[0])).toEqual(
      expect.arrayContaining(["approval_id", "approved_by", "approved_at", "approval_note"]),
    );
    expect(shapeOf(fromV4)).toEqual(expected);
    expect(expected.columns.map((c) => (c as unknown[])[0])).toContain("client_session");
    expect(expected.stateCheck).toContain("'halted'");
    expect(expected.halts.map((c) => (c as unknown[])[0])).toContain("released_by");
    expect(shapeOf(fromV3)).toEqual(expected);
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
      expect(
        (check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
      ).toBe("2");
      const columns = (check.pragma("table_info(actions)") as { name: string }[]).map((c) => c.name);
      expect(columns).not.toContain("client_kind");
      expect((check.prepare("SELECT COUNT(*) AS n FROM actions").get() as { n: number }).n).toBe(3);
    } finally {
      check.close();
    }
  });
});

describe("the ledger schema migration to version 4 (a ledger file from the landed version 3): the halt latch beside who asked", () => {
  it("upgrades in place: every row kept with its client, the halted state and the halts table work", () => {
    const path = v3File();
    const ledger = IntentLedger.open(path);
    try {
      expect(ledger.list({ limit: 10 }).map((r) => [r.actionId, r.state, r.client])).toEqual([
        ["act_partial", "confirmed_partial", undefined],
        ["act_unknown", "unknown", { kind: "mcp", name: "inspector 1.0" }],
        ["act_done", "done", { kind: "agent", name: "gemini-2.5-flash", session: "s1" }],
      ]);
      expect(ledger.get("act_partial")).toMatchObject({
        operator: "ana",
        operatorOutcome: "partial",
        observed: { pose: { elbow: 0.2 }, stampMs: 3050 },
        message: "v3 words for confirmed_partial",
      });
      expect(ledger.list({ client: { kind: "mcp" } }).map((r) => r.actionId)).toEqual(["act_unknown"]);
      expect(ledger.inState("unknown").map((r) => r.resources)).toEqual([["joint:wrist_2"]]);
      expect(ledger.openHalts()).toEqual([]);
      ledger.recordHalt({
        haltId: "halt_1",
        haltedAt: 4000,
        source: "console",
        operator: "ana",
        callId: undefined,
        axes: undefined,
        note: undefined,
      });
      ledger.answerHalt("halt_1", { confirmed: true, pose: { wrist_2: 0.6 } }, 4010);
      const row = ledger.settle(
        "act_unknown",
        {
          state: "halted",
          timedOut: false,
          settledBy: "operator",
          operator: "ana",
          message: "halted",
          evidence: { pose: { wrist_2: 0.6 } },
        },
        4020,
      );
      // The motion a halt stopped keeps who asked for it.
      expect(row).toMatchObject({ state: "halted", operator: "ana", client: { kind: "mcp", name: "inspector 1.0" } });
      expect(resultFromRow(row)).toMatchObject({ status: "stopped", pose: { wrist_2: 0.6 } });
    } finally {
      ledger.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const meta = Object.fromEntries(
        (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [
          m.key,
          m.value,
        ]),
      );
      expect(meta.schema_version).toBe(String(SCHEMA_VERSION));
      expect(meta.migrated_at).toMatch(/\(from 3, 3 rows\)$/);
      // The rebuilt table kept the client index.
      const indexes = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' AND name NOT LIKE 'sqlite_%'",
          )
          .all() as { name: string }[]
      ).map((i) => i.name);
      expect(indexes.sort()).toEqual(["actions_client", "actions_created", "actions_state"]);
    } finally {
      db.close();
    }
  });

  it("a failed upgrade leaves the version-3 file as it was (one transaction)", () => {
    const path = v3File();
    // A halts table already there: the step fails after rebuilding actions and must roll back whole.
    const db = new Database(path);
    db.exec("CREATE TABLE halts (halt_id TEXT PRIMARY KEY) STRICT");
    db.close();
    expect(() => IntentLedger.open(path)).toThrow();
    const check = new Database(path, { readonly: true });
    try {
      expect(
        (check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
      ).toBe("3");
      expect(
        (check.prepare("SELECT sql FROM sqlite_master WHERE name = 'actions'").get() as { sql: string }).sql,
      ).not.toContain("'halted'");
      expect(
        (check.prepare("SELECT COUNT(*) AS n FROM actions WHERE client_name IS NOT NULL").get() as { n: number }).n,
      ).toBe(2);
    } finally {
      check.close();
    }
  });
});

describe("the ledger schema migration to version 5 (a ledger file from the landed version 4): who approved a gated motion", () => {
  const approvedIntent = {
    actionId: "act_gated",
    callId: "c_gated",
    tool: "move_joints",
    args: { positions: { elbow: 1 } },
    argsHash: "hg",
    resources: ["joint:elbow"],
    command: { actionId: "act_gated", targets: { elbow: 1 }, speed: 0.5 },
    approval: { approvalId: "apr_1", operator: "ana", at: 5000, note: "area clear" },
  } as const;

  it("upgrades in place: every row and halt kept, no approval on old rows, and a new row keeps who approved it across a reopen", () => {
    const path = v4File();
    const ledger = IntentLedger.open(path);
    try {
      expect(ledger.list({ limit: 10 }).map((r) => [r.actionId, r.state, r.client?.name, r.approval])).toEqual([
        ["act_unknown", "unknown", undefined, undefined],
        ["act_halted", "halted", "armbridge call", undefined],
        ["act_done", "done", "gemini-2.5-flash", undefined],
      ]);
      expect(ledger.get("act_halted")).toMatchObject({
        operator: "ana",
        message: "v4 words for halted",
        command: { from: { elbow: 0 } },
      });
      expect(ledger.inState("unknown").map((r) => r.resources)).toEqual([["joint:wrist_2"]]);
      expect(ledger.openHalts()).toEqual([]);
      ledger.recordIntent(approvedIntent, 5001);
      ledger.recordIntent({ ...approvedIntent, actionId: "act_free", callId: "c_free", approval: undefined }, 5002);
    } finally {
      ledger.close();
    }
    const again = IntentLedger.open(path);
    try {
      expect(again.get("act_gated")?.approval).toEqual({
        approvalId: "apr_1",
        operator: "ana",
        at: 5000,
        note: "area clear",
      });
      expect(again.get("act_free")?.approval).toBeUndefined();
    } finally {
      again.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const meta = Object.fromEntries(
        (db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((m) => [
          m.key,
          m.value,
        ]),
      );
      expect(meta.schema_version).toBe("5");
      expect(meta.migrated_at).toMatch(/\(from 4, 3 rows\)$/);
      expect(
        (db.prepare("SELECT released_by FROM halts WHERE halt_id = 'halt_v4'").get() as { released_by: string })
          .released_by,
      ).toBe("bo");
    } finally {
      db.close();
    }
  });

  it("a failed upgrade leaves the version-4 file as it was (one transaction)", () => {
    const path = v4File();
    // A column the upgrade adds last already exists: the step fails after adding the others and must roll back whole.
    const db = new Database(path);
    db.exec("ALTER TABLE actions ADD COLUMN approval_note TEXT");
    db.close();
    expect(() => IntentLedger.open(path)).toThrow();
    const check = new Database(path, { readonly: true });
    try {
      expect(
        (check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
      ).toBe("4");
      const columns = (check.pragma("table_info(actions)") as { name: string }[]).map((c) => c.name);
      expect(columns).not.toContain("approved_by");
      expect((check.prepare("SELECT COUNT(*) AS n FROM actions").get() as { n: number }).n).toBe(3);
    } finally {
      check.close();
    }
  });
});
