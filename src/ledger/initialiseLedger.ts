import type Database from "better-sqlite3";
import { ArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import { FRESH_SCHEMA, migrateLedger, SCHEMA_VERSION } from "./ledgerSchema.js";

/** What meta.app says in every armbridge ledger: a SQLite file without it is someone else's. */
const APP_ID = "armbridge-intent-ledger";

/**
 * Makes an opened database a usable ledger: an empty file gets the fresh
 * schema; an armbridge ledger of an older schema is upgraded; anything else
 * (a damaged file, another application's tables, a newer schema) is refused
 * with a coded error and left as it was. Either way the journal is WAL with
 * synchronous=FULL, so a committed intent survives power loss.
 */
export function initialiseLedger(db: Database.Database, path: string, log: Logger): void {
  // quick_check reads every page: a damaged file fails here, not mid-motion.
  const check = db.pragma("quick_check", { simple: true });
  if (check !== "ok") throw new ArmbridgeError("ARMB_ERR_LEDGER_CORRUPT", { path, reason: String(check) });
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
    (t) => t.name,
  );
  if (tables.length === 0) {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.transaction(() => {
      db.exec(FRESH_SCHEMA);
      const put = db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?)`);
      put.run("app", APP_ID);
      put.run("schema_version", String(SCHEMA_VERSION));
      put.run("created_at", String(Date.now()));
    })();
    return;
  }
  if (!tables.includes("meta") || !tables.includes("actions")) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", { path, reason: `it has tables ${tables.join(", ")}` });
  }
  const meta = new Map(
    (db.prepare(`SELECT key, value FROM meta`).all() as { key: string; value: string }[]).map((m) => [m.key, m.value]),
  );
  if (meta.get("app") !== APP_ID) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_FOREIGN", {
      path,
      reason: `its meta.app is ${JSON.stringify(meta.get("app") ?? null)}`,
    });
  }
  const version = meta.get("schema_version");
  const found = version === undefined || !/^[1-9][0-9]*$/.test(version) ? Number.NaN : Number(version);
  // Older versions are upgraded; a newer one was written by a newer armbridge, whose rows this one may misread.
  if (!(found >= 1 && found <= SCHEMA_VERSION)) {
    throw new ArmbridgeError("ARMB_ERR_LEDGER_VERSION", { path, found: version ?? "none", expected: SCHEMA_VERSION });
  }
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  const steps = migrateLedger(db, found);
  if (steps.length > 0) log.warn({ path, from: found, to: SCHEMA_VERSION }, "intent ledger schema upgraded");
}
