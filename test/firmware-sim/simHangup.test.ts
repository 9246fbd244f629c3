import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { socatOnPath } from "../../firmware-sim/simOptions.js";

// firmware-sim on a PTY link starts socat. A closed terminal (SIGHUP) must stop
// it as SIGINT/SIGTERM do: by default SIGHUP would end the simulator and leave
// socat holding the PTY pair, an orphan. Real processes,
// checked by pid from /proc.
const SIM = join(import.meta.dirname, "..", "..", "dist", "firmware-sim", "main.js");
const runnable = socatOnPath() && existsSync(SIM);
if (!runnable) console.warn(`firmware-sim SIGHUP test skipped: needs socat on PATH and ${SIM} (npm run build)`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe("firmware-sim --link pty", () => {
  it.skipIf(!runnable)(
    "stops its socat on SIGHUP and exits 0 (skipped without socat or dist)",
    async () => {
      const child = spawn(process.execPath, [SIM, "--link", "pty", "--seed", "1"], {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "warn" },
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once("exit", (code, signal) => resolve({ code, signal })),
      );
      let socats: number[] = [];
      try {
        await new Promise<void>((resolve, reject) => {
          createInterface({ input: child.stdout }).on("line", (line) => {
            if (line.includes('"event":"ready"')) resolve();
          });
          void exited.then(() => reject(new Error("firmware-sim exited before its ready line")));
        });
        socats = childrenOf(child.pid ?? -1);
        expect(socats.length, "firmware-sim should have a socat child").toBe(1);
        child.kill("SIGHUP");
        expect(await exited).toEqual({ code: 0, signal: null });
        const until = Date.now() + 5000;
        while (socats.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        expect(socats.filter(alive), "socat left running").toEqual([]);
      } finally {
        for (const pid of [child.pid ?? -1, ...socats]) if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
      }
    },
    30_000,
  );
});
