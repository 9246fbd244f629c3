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
 * 3. the halt latch: `halted` (a motion a confirmed halt stopped part-way, at
 *    the pose the arm reported) and the `halts` table (every halt, what the
 *    arm said to it, and who released it).
 */
export const SCHEMA_VERSION = 3;

const STATE_CHECK = `CHECK (state IN (${ACTION_STATES.map((s) => `'${s}'`).join(", ")}))`;
/** The states of version 2, frozen: what a version-1 file is rebuilt into (each step builds its own version, never "the current one"). */
const V2_STATE_CHECK = `CHECK (state IN ('started', 'done', 'failed', 'unknown', 'confirmed_done', 'confirmed_not_done', 'confirmed_partial'))`;

/** The actions table under `name` with the states' CHECK `stateCheck` (a migration builds it beside the old one). */
function actionsTable(name: string, stateCheck = STATE_CHECK): string {
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
  state          TEXT NOT NULL ${stateCheck},
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

/**
 * Every halt asked of the arm (console, the stop tool, `armbridge halt`,
 * HTTP): the latch is on while any row has no `released_at`. `confirmed` is
 * null until the arm answered (1: it reports the axes halted; 0: it did not
 * confirm, `detail` says why).
 */
const HALTS_TABLE = `
CREATE TABLE halts (
  halt_id      TEXT PRIMARY KEY,
  halted_at    INTEGER NOT NULL,
  source       TEXT NOT NULL,
  operator     TEXT,
  call_id      TEXT,
  axes_json    TEXT,
  note         TEXT,
  confirmed    INTEGER CHECK (confirmed IN (0, 1)),
  detail       TEXT,
  pose_json    TEXT,
  answered_at  INTEGER,
  released_at  INTEGER,
  released_by  TEXT,
  release_note TEXT
) STRICT;
CREATE INDEX halts_open ON halts (released_at);`;

export const FRESH_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
${actionsTable("actions")}
${INDEXES}
${HALTS_TABLE}`;

/** Columns every version has had: what a rebuild copies over. */
const V1_COLUMNS = [
  "action_id", "call_id", "tool", "args_json", "args_hash", "resources_json", "command_json", "arm_incarnation", "state", "timed_out",
  "settled_by", "message", "evidence_json", "operator", "operator_note", "created_at", "settled_at", "confirmed_at", "updated_at",
].join(", ");
/** The columns of version 2 (and 3): what the version-3 rebuild copies over. */
const V2_COLUMNS = `${V1_COLUMNS}, operator_outcome, observed_pose_json, observed_at`;

/**
 * Migration from version N to N+1, keyed by N. SQLite cannot change a CHECK
 * constraint in place, so a new state means rebuilding the table: create the
 * new one beside it, copy every row, drop the old, rename
 * (https://www.sqlite.org/lang_altertable.html#otheralter, the "making other
 * kinds of table schema changes" procedure).
 */
const MIGRATIONS: Readonly<Record<number, (db: Database.Database) => void>> = {
  1: (db) => {
    db.exec(actionsTable("actions_v2", V2_STATE_CHECK));
    db.exec(`INSERT INTO actions_v2 (${V1_COLUMNS}) SELECT ${V1_COLUMNS} FROM actions`);
    db.exec(`DROP TABLE actions`);
    db.exec(`ALTER TABLE actions_v2 RENAME TO actions`);
    db.exec(INDEXES);
  },
  // A new state (halted) is a new CHECK: rebuilt as above; the halts table is new.
  2: (db) => {
    db.exec(actionsTable("actions_v3"));
    db.exec(`INSERT INTO actions_v3 (${V2_COLUMNS}) SELECT ${V2_COLUMNS} FROM actions`);
    db.exec(`DROP TABLE actions`);
    db.exec(`ALTER TABLE actions_v3 RENAME TO actions`);
    db.exec(INDEXES);
    db.exec(HALTS_TABLE);
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
