import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";

const dir = () => mkdtempSync(join(tmpdir(), "armbridge-ledger-"));
const intent = (n: number) => ({
  actionId: `act_${n}`,
  callId: `call_${n}`,
  tool: "move_joints",
  args: { positions: { elbow: n / 10 } },
  argsHash: `h${n}`,
  resources: ["joint:elbow"],
  command: { actionId: `act_${n}`, targets: { elbow: n / 10 }, speed: 0.5 },
});

describe("IntentLedger", () => {
  it("persists intents and settlements across reopen, in WAL mode with synchronous=FULL", () => {
    const path = join(dir(), "ledger.sqlite");
    const a = IntentLedger.open(path);
    a.recordIntent(intent(1), 1000);
    a.recordIntent(intent(2), 1001);
    a.settle(
      "act_1",
      { state: "done", timedOut: true, settledBy: "observation", message: "ok", evidence: { pose: { elbow: 0.1 } } },
      1100,
    );
    a.close();

    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();

    const b = IntentLedger.open(path);
    expect(b.get("act_1")).toMatchObject({
      state: "done",
      timedOut: true,
      settledBy: "observation",
      evidence: { pose: { elbow: 0.1 } },
      settledAt: 1100,
    });
    expect(b.findByCallId("call_2")).toMatchObject({ actionId: "act_2", state: "started" });
    expect(b.inState("started").map((r) => r.actionId)).toEqual(["act_2"]);
    expect(b.list({ limit: 1 }).map((r) => r.actionId)).toEqual(["act_2"]);
    b.close();
  });

  it("refuses a second intent for one call id with ARMB_ERR_CALL_ID_REUSED", () => {
    const l = IntentLedger.open(":memory:");
    l.recordIntent(intent(1));
    expect(() => l.recordIntent({ ...intent(9), callId: "call_1" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_CALL_ID_REUSED" }),
    );
    l.close();
  });

  it("group-commits intents recorded in one tick, refusing a reused call id without losing the others", async () => {
    const l = IntentLedger.open(":memory:");
    l.recordIntent(intent(1));
    const results = await Promise.allSettled([
      l.recordIntentDurably(intent(2)),
      l.recordIntentDurably({ ...intent(3), callId: "call_1" }),
      l.recordIntentDurably(intent(4)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "ARMB_ERR_CALL_ID_REUSED" });
    expect(l.inState("started").map((r) => r.actionId)).toEqual(["act_1", "act_2", "act_4"]);
    l.close();
  });

  it("keeps the first settlement: a later one cannot overwrite done, and an operator cannot confirm a settled action", () => {
    const l = IntentLedger.open(":memory:");
    l.recordIntent(intent(1));
    l.settle("act_1", { state: "done", timedOut: false, settledBy: "completion", message: "ok" });
    expect(l.settle("act_1", { state: "failed", timedOut: false, settledBy: "observation", message: "no" }).state).toBe(
      "done",
    );
    expect(() => l.confirm("act_1", { outcome: "not_done", operator: "ana" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_ACTION_NOT_UNKNOWN" }),
    );
    expect(() => l.confirm("act_nope", { outcome: "done", operator: "ana" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_ACTION_NOT_FOUND" }),
    );
    l.close();
  });

  it("lets a later observation settle an unknown action", () => {
    const l = IntentLedger.open(":memory:");
    l.recordIntent(intent(1));
    l.settle("act_1", { state: "unknown", timedOut: true, settledBy: "none", message: "?" });
    expect(l.settle("act_1", { state: "done", timedOut: true, settledBy: "observation", message: "late" }).state).toBe(
      "done",
    );
    l.close();
  });

  it("refuses a file that is not SQLite, and leaves it untouched", () => {
    const path = join(dir(), "ledger.sqlite");
    writeFileSync(path, "this is a text file, not a ledger\n");
    expect(() => IntentLedger.open(path)).toThrow(expect.objectContaining({ code: "ARMB_ERR_LEDGER_FOREIGN" }));
    expect(readFileSync(path, "utf8")).toBe("this is a text file, not a ledger\n");
  });

  it("refuses another application's SQLite database", () => {
    const path = join(dir(), "other.sqlite");
    const db = new Database(path);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('x');");
    db.close();
    expect(() => IntentLedger.open(path)).toThrow(expect.objectContaining({ code: "ARMB_ERR_LEDGER_FOREIGN" }));
    const again = new Database(path, { readonly: true });
    expect(again.prepare("SELECT count(*) AS n FROM customers").get()).toEqual({ n: 1 });
    again.close();
  });

  it("refuses a ledger of another schema version", () => {
    const path = join(dir(), "ledger.sqlite");
    IntentLedger.open(path).close();
    const db = new Database(path);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => IntentLedger.open(path)).toThrow(expect.objectContaining({ code: "ARMB_ERR_LEDGER_VERSION" }));
  });

  it("refuses a damaged ledger with ARMB_ERR_LEDGER_CORRUPT instead of starting a new one", () => {
    const path = join(dir(), "ledger.sqlite");
    const l = IntentLedger.open(path);
    for (let i = 0; i < 200; i++) l.recordIntent(intent(i));
    l.close();
    // Fold the WAL into the main file, then scribble over pages past the header.
    const db = new Database(path);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    const bytes = readFileSync(path);
    for (let i = 4096; i < bytes.length; i += 7) bytes[i] = 0xa5;
    writeFileSync(path, bytes);
    expect(() => IntentLedger.open(path)).toThrow(expect.objectContaining({ code: "ARMB_ERR_LEDGER_CORRUPT" }));
  });
});
