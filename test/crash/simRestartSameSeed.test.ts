import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { readEffects } from "../firmware-sim/readEffects.js";
import { SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

/**
 * A simulator restarted with the same --seed comes back in a new boot: were
 * its boot id taken from the seed, the bridge would ask it to void a motion
 * the previous process had started, and record `failed` ("voided without
 * moving") for a motion that ran.
 * Judged by the effects logs of both simulator processes.
 */
const built = existsSync(SIM);
const procs: ReadyProcess[] = [];
const bridges: Bridge[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const b of bridges.splice(0)) await b.close();
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startSim(effectsLog: string): Promise<ReadyProcess> {
  const p = await startReady(SIM, [
    "--link",
    "tcp",
    "--port",
    "0",
    "--seed",
    "42",
    "--motion-time",
    "fixed:5000",
    "--effects-log",
    effectsLog,
  ]);
  procs.push(p);
  return p;
}

describe.skipIf(!built)("a simulator restarted with the same seed during a motion (needs dist: npm run build)", () => {
  it(
    "is a new boot: the bridge settles the motion unknown, never failed, and voids nothing",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "armbridge-same-seed-"));
      dirs.push(dir);
      const dataDir = join(dir, "data");
      const effectsA = join(dir, "effects-a.jsonl");
      const effectsB = join(dir, "effects-b.jsonl");

      const simA = await startSim(effectsA);
      const first = await Bridge.start({ transport: { kind: "serial", link: String(simA.ready.link) }, dataDir });
      bridges.push(first);
      const pending = first.executor.execute(
        [{ id: "same-seed-1", name: "move_joints", args: { positions: { elbow: 0.2 } } }],
        { deadlineMs: 30_000 },
      );
      await until(() => readEffects(effectsA).some((e) => e.event === "motion_start"), "motion_start on simulator A");
      const actionId = readEffects(effectsA).find((e) => e.event === "motion_start")?.action_id ?? "";

      // Both go down mid-motion: the simulator by SIGKILL, the bridge by shutdown (its row stays `started`).
      simA.child.kill("SIGKILL");
      await simA.exited;
      first.executor.close();
      const [answer] = await pending;
      expect(answer?.result.status).toBe("unknown");
      await first.close();
      bridges.splice(bridges.indexOf(first), 1);
      expect(first.ledger.path).toBe(join(dataDir, "ledger.sqlite"));

      // Restarted the same way: same seed, same flags.
      const simB = await startSim(effectsB);
      const second = await Bridge.start({ transport: { kind: "serial", link: String(simB.ready.link) }, dataDir });
      bridges.push(second);
      const row = second.ledger.get(actionId);

      expect(readEffects(effectsA).filter((e) => e.event === "motion_start" && e.action_id === actionId)).toHaveLength(
        1,
      );
      expect(row?.state).toBe("unknown");
      expect(row?.state).not.toBe("failed");
      // Simulator B was never asked to void the id (that is what turned it `failed`).
      expect(readEffects(effectsB).filter((e) => e.action_id === actionId)).toEqual([]);
    },
  );
});
