import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEffects } from "../firmware-sim/readEffects.js";
import { CLI, SIM, interrupt, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

/**
 * A ledger belongs to one bridge, with real processes: two simulators on the
 * same seed, a bridge serving arm A with a motion under way, and a second
 * bridge started for arm B on the same data folder. B must not reconcile A's
 * in-flight row against arm B (voiding it there, recording `failed … re-running
 * is allowed` for a motion that reached its target on A): B refuses to start,
 * naming A's bridge; and the lock dies with its holder (SIGKILL).
 */
const built = existsSync(CLI) && existsSync(SIM);
const TOKEN = "two-bridges-token";
const procs: ReadyProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const p of procs.splice(0).reverse())
    if (p.child.exitCode === null && p.child.signalCode === null) await interrupt(p);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function ready(file: string, args: string[]): Promise<ReadyProcess> {
  const p = await startReady(file, args);
  procs.push(p);
  return p;
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!built)("two bridges on one data folder (needs dist: npm run build)", () => {
  it(
    "the second refuses to start with ARMB_ERR_LEDGER_LOCKED naming the first; arm B is never touched; a SIGKILLed holder does not block",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "armbridge-two-bridges-"));
      dirs.push(dir);
      const data = join(dir, "data");
      const effectsA = join(dir, "effects-a.jsonl");
      const effectsB = join(dir, "effects-b.jsonl");
      const simArgs = (effects: string): string[] => [
        "--link",
        "tcp",
        "--port",
        "0",
        "--seed",
        "7",
        "--motion-time",
        "fixed:1500",
        "--effects-log",
        effects,
      ];
      const simA = await ready(SIM, simArgs(effectsA));
      const simB = await ready(SIM, simArgs(effectsB));

      const serveA = await ready(CLI, [
        "serve",
        "--serial",
        String(simA.ready.link),
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--data",
        data,
      ]);
      expect(serveA.ready.data).toBe(data);
      const call = fetch(`${String(serveA.ready.http)}/v1/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          calls: [{ id: "on-arm-a", name: "move_joints", args: { positions: { elbow: 0.2 } } }],
          deadline_ms: 20_000,
        }),
      });
      await until(() => readEffects(effectsA).some((e) => e.event === "motion_start"), "the motion on arm A");

      // A second bridge that did start would be stopped by afterEach (and fail the test here).
      const refusal = await startReady(CLI, [
        "serve",
        "--serial",
        String(simB.ready.link),
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--data",
        data,
      ]).then(
        (p) => {
          procs.push(p);
          return "the second bridge started";
        },
        (e: Error) => e.message,
      );
      expect(refusal).toContain("exited 1 before its ready line");
      expect(refusal).toContain("ARMB_ERR_LEDGER_LOCKED");
      expect(refusal).toContain(`pid ${serveA.child.pid}`);
      // The holder is named by its command, never with its credentials; its record is for its owner's eyes.
      expect(refusal).toContain("--token ***");
      expect(refusal).not.toContain(TOKEN);
      const ownerFile = join(data, "ledger.owner.json");
      expect(readFileSync(ownerFile, "utf8")).not.toContain(TOKEN);
      expect(statSync(ownerFile).mode & 0o777).toBe(0o600);

      // Ground truth: arm A ran the motion to its target, once; arm B never heard of it.
      const answer = (await (await call).json()) as {
        responses: { response: { output: { status: string; action_id: string } } }[];
      };
      const output = answer.responses[0]!.response.output;
      expect(output.status).toBe("done");
      expect(
        readEffects(effectsA).filter((e) => e.event === "motion_start" && e.action_id === output.action_id),
      ).toHaveLength(1);
      expect(readEffects(effectsB).filter((e) => e.action_id === output.action_id)).toEqual([]);
      const row = (await (
        await fetch(`${String(serveA.ready.http)}/v1/actions/${output.action_id}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { state: string };
      expect(row.state).toBe("done");

      // The lock is the OS's: SIGKILL the holder, and a new bridge takes the folder at once,
      // although the dead holder's owner file is still there.
      serveA.child.kill("SIGKILL");
      await serveA.exited;
      expect(JSON.parse(readFileSync(join(data, "ledger.owner.json"), "utf8"))).toMatchObject({
        pid: serveA.child.pid,
      });
      const serveA2 = await ready(CLI, [
        "serve",
        "--serial",
        String(simA.ready.link),
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--data",
        data,
      ]);
      expect(serveA2.ready.data).toBe(data);
      expect(JSON.parse(readFileSync(join(data, "ledger.owner.json"), "utf8"))).toMatchObject({
        pid: serveA2.child.pid,
      });
    },
  );
});
