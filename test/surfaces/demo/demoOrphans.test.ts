import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socatAvailable } from "../../../firmware-sim/spawnSimulator.js";

// `armbridge demo` starts firmware-sim, which starts socat (PTY link). However
// the demo is told to stop — SIGINT, SIGTERM, SIGHUP (a closed terminal), or
// a reader that went away (`armbridge demo | head -1`) — neither child may be
// left running. Checked by pid, on real processes.
const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");
const link = socatAvailable() ? "pty" : "tcp";
if (link === "tcp")
  console.warn("demo orphans: socat is not on PATH, so only firmware-sim is checked (no socat child to leave behind)");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Child pids of `pid`, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent pid; the name (field 2) may hold spaces, so split after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function gone(pids: readonly number[], ms = 20_000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = left.filter(alive);
  }
  return left;
}

interface RunningDemo {
  readonly child: ChildProcess;
  readonly simPid: number;
  /** firmware-sim and, on a PTY link, its socat. */
  readonly descendants: number[];
  readonly exited: Promise<number | null>;
}

let dir: string;
const started: number[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "armbridge-demo-orphans-"));
});
afterAll(() => {
  // Whatever a failed test left behind, this test run does not.
  for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts the demo and returns once its simulator (and socat) are up and the demo has more to say. */
async function startDemo(name: string, ownGroup = false): Promise<RunningDemo> {
  const env: NodeJS.ProcessEnv = { ...process.env, ARMBRIDGE_LOG_LEVEL: "info" };
  delete env.GEMINI_API_KEY;
  const child = spawn(process.execPath, [CLI_MAIN, "demo", "--link", link, "--data", join(dir, name)], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: ownGroup,
  });
  started.push(child.pid ?? -1);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const simPid = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const m = /firmware-sim \(pid (\d+),/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`demo exited ${code} before it started firmware-sim`)));
  });
  const descendants = [simPid, ...childrenOf(simPid)];
  started.push(...descendants);
  if (link === "pty") expect(descendants.length, "firmware-sim should have a socat child").toBeGreaterThanOrEqual(2);
  return { child, simPid, descendants, exited };
}

describe("armbridge demo leaves no firmware-sim or socat behind (needs dist: npm run build)", () => {
  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "on %s",
    async (signal) => {
      const demo = await startDemo(signal);
      demo.child.kill(signal);
      await demo.exited;
      expect(await gone(demo.descendants), `left running after ${signal}`).toEqual([]);
    },
    90_000,
  );

  it("when its terminal closes: SIGHUP to the whole process group at once, simulator and socat included", async () => {
    // What a closing terminal does to its foreground job (the demo, firmware-sim and socat alike); each must
    // stop cleanly on its own SIGHUP, none may be left for want of a parent to stop it.
    const demo = await startDemo("hangup-group", true);
    process.kill(-(demo.child.pid ?? 0), "SIGHUP");
    await demo.exited;
    expect(await gone(demo.descendants), "left running after the group's SIGHUP").toEqual([]);
  }, 90_000);

  it("when its stdout is closed (armbridge demo | head -1)", async () => {
    const demo = await startDemo("epipe");
    // The reader goes away: the demo's next line meets EPIPE.
    demo.child.stdout?.destroy();
    await demo.exited;
    expect(await gone(demo.descendants), "left running after stdout closed").toEqual([]);
  }, 90_000);

  it("on SIGINT during the ER session: its own simulator (and socat) go too", async () => {
    const demo = await startDemo("er-sigint");
    const erSimPid = await new Promise<number>((resolve, reject) => {
      const lines = createInterface({ input: demo.child.stdout! });
      lines.on("line", (line) => {
        const m = /ER arm +a simulated arm of its own \(sim pid (\d+)\)/.exec(line);
        if (m) resolve(Number(m[1]));
      });
      void demo.exited.then((code) => reject(new Error(`demo exited ${code} before the ER session started`)));
    });
    const erDescendants = [erSimPid, ...childrenOf(erSimPid)];
    started.push(...erDescendants);
    demo.child.kill("SIGINT");
    expect(await demo.exited).toBe(0);
    expect(await gone([...demo.descendants, ...erDescendants]), "left running after SIGINT in the ER session").toEqual(
      [],
    );
  }, 90_000);
});
