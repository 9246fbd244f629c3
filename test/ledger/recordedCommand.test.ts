import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";

// A row's command is read back through one check: what the executor, the
// views and the confirm rules get is a command (actionId, targets, speed, the
// pose it started from) or nothing — never a cast of whatever the file holds.

describe("ActionRow.command", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** A ledger whose one row's command_json is replaced by `stored` behind the ledger's back. */
  function rowWithStoredCommand(stored: string | null) {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-command-"));
    dirs.push(dir);
    const path = join(dir, "ledger.sqlite");
    const ledger = IntentLedger.open(path);
    ledger.recordIntent(
      {
        actionId: "act_1",
        callId: "call_1",
        tool: "move_joints",
        args: {},
        argsHash: "h",
        resources: ["joint:elbow"],
        command: { actionId: "act_1", targets: { elbow: 0.3 }, speed: 0.5, from: { elbow: 0 } },
      },
      1000,
    );
    ledger.close();
    const db = new Database(path);
    db.prepare("UPDATE actions SET command_json = ? WHERE action_id = 'act_1'").run(stored);
    db.close();
    const reopened = IntentLedger.open(path);
    const row = reopened.get("act_1");
    reopened.close();
    return row;
  }

  it("reads back what was recorded, the start pose included", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-command-"));
    dirs.push(dir);
    const ledger = IntentLedger.open(join(dir, "ledger.sqlite"));
    ledger.recordIntent(
      {
        actionId: "act_1",
        callId: "call_1",
        tool: "move_joints",
        args: {},
        argsHash: "h",
        resources: ["joint:elbow"],
        command: { actionId: "act_1", targets: { elbow: 0.3 }, speed: 0.5, from: { elbow: 0 } },
      },
      1000,
    );
    expect(ledger.get("act_1")?.command).toEqual({
      actionId: "act_1",
      targets: { elbow: 0.3 },
      speed: 0.5,
      from: { elbow: 0 },
    });
    ledger.close();
  });

  it("keeps a row recorded before the start pose was kept, and keys it does not know", () => {
    expect(
      rowWithStoredCommand(JSON.stringify({ actionId: "act_1", targets: { elbow: 0.3 }, speed: 0.5, extra: "kept" }))
        ?.command,
    ).toEqual({
      actionId: "act_1",
      targets: { elbow: 0.3 },
      speed: 0.5,
      extra: "kept",
    });
  });

  it.each([
    ["no targets", JSON.stringify({ actionId: "act_1", speed: 0.5 })],
    ["a target that is not a number", JSON.stringify({ actionId: "act_1", targets: { elbow: "up" }, speed: 0.5 })],
    ["no action id", JSON.stringify({ targets: { elbow: 0.3 }, speed: 0.5 })],
    ["not an object", JSON.stringify([1, 2])],
    ["nothing", null],
  ])("reads a stored command with %s as no command", (_what, stored) => {
    const row = rowWithStoredCommand(stored);
    expect(row?.state).toBe("started");
    expect(row?.command).toBeUndefined();
  });
});
