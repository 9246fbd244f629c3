import { ACTION_STATES } from "../wire/vocabulary.js";
import type Database from "better-sqlite3";

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
 * 3. who asked: the client that sent each call (`client_kind`,
 *    `client_name`, `client_session`; null on rows written before), indexed
 *    for the history's filter.
 * 4. the halt latch: `halted` (a motion a confirmed halt stopped part-way, at
 *    the pose the arm reported) and the `halts` table (every halt, what the
 *    arm said to it, and who released it).
 * 5. who approved: for a motion the config gates behind an operator's
 *    approval, the request's id, the operator, when they decided and their
 *    note (`approval_id`, `approved_by`, `approved_at`, `approval_note`;
 *    null on rows written before and on motions no one had to approve).
 */
export const SCHEMA_VERSION = 5;

const STATE_CHECK = `CHECK (state IN (${ACTION_STATES.map((s) => `'${s}'`).join(", ")}))`;
/** The states of version 4 (and 5), frozen: what a version-3 file is rebuilt into. */
const V4_STATE_CHECK = `CHECK (state IN ('started', 'done', 'failed', 'unknown', 'confirmed_done', 'confirmed_not_done', 'confirmed_partial', 'halted'))`;
/** The states of versions 2 and 3, frozen: what a version-1 file is rebuilt into (each step builds its own version, never "the current one"). */
const V2_STATE_CHECK = `CHECK (state IN ('started', 'done', 'failed', 'unknown', 'confirmed_done', 'confirmed_not_done', 'confirmed_partial'))`;

/**
 * The columns of version 2, in order: the table a version-1 file is rebuilt
 * into, and the first columns of the current one. `stateCheck` is the states'
 * CHECK: version 2's own, frozen, for the rebuild; the current states for a
 * fresh file (a new state needs a rebuild step of its own).
 */
const columnsDdl = (stateCheck: string): string => `
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
  observed_at        INTEGER`;

/** What version 3 adds, each a column `ALTER TABLE … ADD COLUMN` can add to a version-2 table as it is. */
const V3_COLUMNS = ["client_kind TEXT", "client_name TEXT", "client_session TEXT"] as const;

const V3_INDEXES = `CREATE INDEX actions_client ON actions (client_name, client_kind, client_session);`;

/** What version 5 adds: who approved a gated motion, when, and what they said (ADD COLUMN, like version 3). */
const V5_COLUMNS = ["approval_id TEXT", "approved_by TEXT", "approved_at INTEGER", "approval_note TEXT"] as const;

/**
 * The actions table as of version 3 and after (version 2's columns, then who
 * asked, then `later` — the columns of versions after the one being built)
 * under `name`, with the states' CHECK `stateCheck`.
 */
const actionsTable = (
  name: string,
  stateCheck: string,
  later: readonly string[],
): string => `CREATE TABLE ${name} (${columnsDdl(stateCheck)},
  ${[...V3_COLUMNS, ...later].join(",\n  ")}
) STRICT;`;

const INDEXES = `
CREATE INDEX actions_state ON actions (state);
CREATE INDEX actions_created ON actions (created_at);
`;

/**
 * Every halt asked of the arm (console, the stop tool, `armbridge halt`,
 * HTTP), with the client that asked in the actions table's terms: the latch
 * is on while any row has no `released_at`. `confirmed` is
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
  client_kind    TEXT,
  client_name    TEXT,
  client_session TEXT,
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
${actionsTable("actions", STATE_CHECK, V5_COLUMNS)}
${INDEXES}
${V3_INDEXES}
${HALTS_TABLE}`;

/** Columns every version has had: what a rebuild copies over. */
const V1_COLUMNS = [
  "action_id",
  "call_id",
  "tool",
  "args_json",
  "args_hash",
  "resources_json",
  "command_json",
  "arm_incarnation",
  "state",
  "timed_out",
  "settled_by",
  "message",
  "evidence_json",
  "operator",
  "operator_note",
  "created_at",
  "settled_at",
  "confirmed_at",
  "updated_at",
].join(", ");
/** The columns of version 3: what the version-4 rebuild copies over. */
const V3_COPIED = `${V1_COLUMNS}, operator_outcome, observed_pose_json, observed_at, client_kind, client_name, client_session`;

/**
 * Migration from version N to N+1, keyed by N. Each step builds exactly the
 * next version's shape (never "the current one"), so a file several versions
 * old steps through every one in turn.
 */
const MIGRATIONS: Readonly<Record<number, (db: Database.Database) => void>> = {
  // SQLite cannot change a CHECK constraint in place, so a new state means rebuilding the table:
  // create the new one beside it, copy every row, drop the old, rename
  // (https://www.sqlite.org/lang_altertable.html#otheralter, "making other kinds of table schema changes").
  1: (db) => {
    db.exec(`CREATE TABLE actions_v2 (${columnsDdl(V2_STATE_CHECK)}\n) STRICT;`);
    db.exec(`INSERT INTO actions_v2 (${V1_COLUMNS}) SELECT ${V1_COLUMNS} FROM actions`);
    db.exec(`DROP TABLE actions`);
    db.exec(`ALTER TABLE actions_v2 RENAME TO actions`);
    db.exec(INDEXES);
  },
  // Nullable columns without a default: ADD COLUMN leaves every existing row as it was (null: not recorded).
  2: (db) => {
    for (const column of V3_COLUMNS) db.exec(`ALTER TABLE actions ADD COLUMN ${column}`);
    db.exec(V3_INDEXES);
  },
  // A new state (halted) is a new CHECK: rebuilt as in step 1, who-asked columns and all; the halts table is new.
  3: (db) => {
    db.exec(actionsTable("actions_v4", V4_STATE_CHECK, []));
    db.exec(`INSERT INTO actions_v4 (${V3_COPIED}) SELECT ${V3_COPIED} FROM actions`);
    db.exec(`DROP TABLE actions`);
    db.exec(`ALTER TABLE actions_v4 RENAME TO actions`);
    db.exec(INDEXES);
    db.exec(V3_INDEXES);
    db.exec(HALTS_TABLE);
  },
  // Nullable columns again: rows written before say nothing about an approval, which is what they recorded.
  4: (db) => {
    for (const column of V5_COLUMNS) db.exec(`ALTER TABLE actions ADD COLUMN ${column}`);
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
    db.prepare(
      `INSERT INTO meta (key, value) VALUES ('migrated_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(`${Date.now()} (from ${from}, ${count} rows)`);
  })();
  return steps;
}
