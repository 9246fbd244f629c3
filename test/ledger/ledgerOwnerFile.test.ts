import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commandLineWithoutSecrets } from "../../src/ledger/commandLineWithoutSecrets.js";
import {
  describeHolder,
  ownerFileOf,
  readOwnerFile,
  thisProcessAsOwner,
  writeOwnerFile,
} from "../../src/ledger/LedgerOwner.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SECRET = "s3cret-Token-value-0123456789";

describe("the ledger's owner record", () => {
  it.each([
    [["serve", "--token", SECRET, "--data", "/d"], "serve --token *** --data /d"],
    [["serve", `--token=${SECRET}`, "--http", "127.0.0.1:0"], "serve --token=*** --http 127.0.0.1:0"],
    [["serve", "--operator-token", SECRET], "serve --operator-token ***"],
    [
      ["agent", "--api-key", SECRET, "--bridge", `http://ana:${SECRET}@host:1/x?token=${SECRET}#token=${SECRET}`],
      "agent --api-key *** --bridge http://***@host:1/x?token=***#token=***",
    ],
    [
      [`ARMBRIDGE_TOKEN=${SECRET}`, `GEMINI_API_KEY=${SECRET}`, "serve", "--ros"],
      "ARMBRIDGE_TOKEN=*** GEMINI_API_KEY=*** serve --ros",
    ],
    [["serve", "--token", "--ros"], "serve --token --ros"],
  ])("shows %j as %j", (argv, shown) => {
    expect(commandLineWithoutSecrets(argv)).toBe(shown);
  });

  it("is written without the holder's secrets, readable by its owner only, and a second process is told the command without them", () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-owner-"));
    dirs.push(dir);
    const ledger = join(dir, "ledger.sqlite");
    const argv = [
      "/usr/bin/node",
      "/opt/armbridge/dist/cli.js",
      "serve",
      "--serial",
      "tcp://127.0.0.1:9",
      "--token",
      SECRET,
      `--operator-token=${SECRET}`,
      "--data",
      dir,
    ];
    writeOwnerFile(ledger, thisProcessAsOwner(new Date(), argv));
    expect(statSync(ownerFileOf(ledger)).mode & 0o777).toBe(0o600);
    expect(readFileSync(ownerFileOf(ledger), "utf8")).not.toContain(SECRET);
    expect(readOwnerFile(ledger)?.command).toBe(
      `/opt/armbridge/dist/cli.js serve --serial tcp://127.0.0.1:9 --token *** --operator-token=*** --data ${dir}`,
    );
    expect(describeHolder(ledger).holder).not.toContain(SECRET);
  });
});
