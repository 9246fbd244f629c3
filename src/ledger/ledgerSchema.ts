import type Database from "better-sqlite3";
import { ACTION_STATES } from "./ActionRow.js";

/**
 * The ledger's schema, its version, and how an older file is brought up to
 * it. A file is upgraded in one transaction at open (all or nothing), never
 * downgraded: a newer file than this code knows is refused
 * (ARMB_ERR_LEDGER_VERSION) by the caller.
 *
 * Versions:
 * 1. the first ledger.
 * 2. `confirmed_partial` (an operator saw the arm stop part-way), and the
 *    operator's word with the pose observed when they gave it
 *    (`operator_outcome`, `observed_pose_json`, `observed_at`).
 */
export const SCHEMA_VERSION = 2;

const STATE_CHECK = `CHECK (state IN (${ACTION_STATES.map((s) => `'${s}'`).join(", ")}))`;

/** The actions table as of SCHEMA_VERSION, under `name` (a migration builds it beside the old one). */
function actionsTable(name: string): string {
  return `
CREATE TABLE ${name} (
  action_id      TEXT PRIMARY KEY,
  call_id        TEXT NOT NULL UNIQUE,
  tool           TEXT NOT NULL,
  args_json      TEXT NOT NULL,
  args_hash      TEXT NOT NULL,
  resources_json TEXT NOT NULL,
  command_json   TEXT,
  arm_incarnation TEXT,
  state          TEXT NOT NULL ${STATE_CHECK},
  timed_out      INTEGER NOT NULL DEFAULT 0,
  settled_by     TEXT,
  message        TEXT,
  evidence_json  TEXT,
  operator       TEXT,
  operator_note  TEXT,
  created_at     INTEGER NOT NULL,
  settled_at     INTEGER,
  confirmed_at   INTEGER,
  updated_at     INTEGER NOT NULL,
  operator_outcome   TEXT CHECK (operator_outcome IN ('reached', 'partial', 'not_moved')),
  observed_pose_json TEXT,
  observed_at        INTEGER
) STRICT;`;
}

const INDEXES = `
CREATE INDEX actions_state ON actions (state);
CREATE INDEX actions_created ON actions (created_at);
`;

export const FRESH_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
${actionsTable("actions")}
${INDEXES}`;

/** Columns every version has had: what a rebuild copies over. */
const V1_COLUMNS = [
  "action_id", "call_id", "tool", "args_json", "args_hash", "resources_json", "command_json", "arm_incarnation", "state", "timed_out",
  "settled_by", "message", "evidence_json", "operator", "operator_note", "created_at", "settled_at", "confirmed_at", "updated_at",
].join(", ");

/**
 * Migration from version N to N+1, keyed by N. SQLite cannot change a CHECK
 * constraint in place, so a new state means rebuilding the table: create the
 * new one beside it, copy every row, drop the old, rename
 * (https://www.sqlite.org/lang_altertable.html#otheralter, the "making other
 * kinds of table schema changes" procedure).
 */
const MIGRATIONS: Readonly<Record<number, (db: Database.Database) => void>> = {
  1: (db) => {
    db.exec(actionsTable("actions_v2"));
    db.exec(`INSERT INTO actions_v2 (${V1_COLUMNS}) SELECT ${V1_COLUMNS} FROM actions`);
    db.exec(`DROP TABLE actions`);
    db.exec(`ALTER TABLE actions_v2 RENAME TO actions`);
    db.exec(INDEXES);
  },
};

/**
 * Brings a ledger at `from` up to SCHEMA_VERSION in one transaction; the
 * caller has checked `from` is a version this code knows (1..SCHEMA_VERSION).
 * Returns the versions it stepped through, for the log.
 */
export function migrateLedger(db: Database.Database, from: number): number[] {
  const steps: number[] = [];
  if (from >= SCHEMA_VERSION) return steps;
  db.transaction(() => {
    for (let v = from; v < SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v];
      if (!step) throw new Error(`no ledger migration from schema version ${v}`);
      step(db);
      steps.push(v + 1);
    }
    db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema_version'`).run(String(SCHEMA_VERSION));
    const count = (db.prepare(`SELECT COUNT(*) AS n FROM actions`).get() as { n: number }).n;
    db.prepare(`INSERT INTO meta (key, value) VALUES ('migrated_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(`${Date.now()} (from ${from}, ${count} rows)`);
  })();
  return steps;
}
