import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm start` itself, end to end: firmware-sim as a child process, the bridge,
// the HTTP console, the bundled scripted session narrated on stdout, then
// serving until SIGINT. `--ignore-scripts` skips only the prestart build: the
// test command builds first (pretest), and rebuilding dist/ here would race
// other test files that run from it.
const ROOT = join(import.meta.dirname, "..", "..", "..");
const MARKER = "=== session finished ===";

interface Effect {
  event: string;
  action_id: string | null;
  joints: string[];
  outcome?: string;
  t: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// One demo process for the file; the tests read it in order and the last one ends it.
describe("npm start (armbridge demo) on firmware-sim", () => {
  let dir: string;
  let child: ChildProcess;
  let out = "";
  let err = "";
  let exited: Promise<[number | null, NodeJS.Signals | null]>;

  const waitFor = (text: string, ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      if (out.includes(text)) return resolve();
      const timer = setTimeout(() => {
        child.stdout?.off("data", check);
        reject(new Error(`no ${JSON.stringify(text)} within ${ms} ms.\nstdout:\n${out}\nstderr:\n${err}`));
      }, ms);
      const check = (): void => {
        if (!out.includes(text)) return;
        clearTimeout(timer);
        child.stdout?.off("data", check);
        resolve();
      };
      child.stdout?.on("data", check);
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-demo-"));
    const env: NodeJS.ProcessEnv = { ...process.env, ARMBRIDGE_LOG_LEVEL: "info" };
    delete env.GEMINI_API_KEY; // the scripted session, whatever the machine has
    delete env.VITEST;
    child = spawn("npm", ["start", "--ignore-scripts", "--silent", "--", "--data", join(dir, "data")], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr?.on("data", (b: Buffer) => (err += b.toString()));
    exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    await waitFor(MARKER, 90_000);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const effects = (): Effect[] =>
    readFileSync(join(dir, "data", "effects.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Effect);

  it("narrates the four things, each computed from what happened", () => {
    const summary = out.slice(out.indexOf("What this session showed:"));
    const boxes = summary.split("\n").filter((l) => /^\s+\[[ x]\]/.test(l));
    expect(boxes, out).toHaveLength(4);
    for (const b of boxes) expect(b, out).toMatch(/^\s+\[x\]/);

    const parallel = /=> d1 \[\+(\d+)\.\.\+(\d+) ms\] and d2 \[\+(\d+)\.\.\+(\d+) ms\] ran together on disjoint joints/.exec(out);
    expect(parallel, out).not.toBeNull();
    const [a0, a1, b0, b1] = parallel!.slice(1).map(Number) as [number, number, number, number];
    expect(Math.min(a1, b1)).toBeGreaterThan(Math.max(a0, b0));

    const queued = /=> q2 shares elbow with q1: queued, it started at \+(\d+) ms, after q1 ended at \+(\d+) ms/.exec(out);
    expect(queued, out).not.toBeNull();
    expect(Number(queued![1])).toBeGreaterThanOrEqual(Number(queued![2]));

    expect(out).toMatch(/t1: wait timed out after \d+ ms — the motion went on — observed reached at \+\d+ ms \(\d+ ms after the timeout\) -> done/);
    expect(out).toMatch(/u1 +move_joints +act_\w+ UNKNOWN/);
    expect(out).toMatch(/! confirm at http:\/\/127\.0\.0\.1:\d+\/console#token=/);
  });

  it("agrees with the simulator's ground truth: one start per action, never two motions on a joint at once", () => {
    const all = effects();
    const starts = all.filter((e) => e.event === "motion_start");
    const ids = starts.map((e) => e.action_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.filter((e) => e.event === "duplicate_refused")).toEqual([]);

    const intervals = starts.map((s) => {
      const end = all.find((e) => e.event === "motion_end" && e.action_id === s.action_id);
      return { id: s.action_id, joints: s.joints, from: s.t, to: end?.t ?? Infinity, outcome: end?.outcome };
    });
    for (const x of intervals) {
      for (const y of intervals) {
        if (x === y || !x.joints.some((j) => y.joints.includes(j))) continue;
        expect(x.to <= y.from || y.to <= x.from, `${x.id} and ${y.id} overlap on ${x.joints.join(",")}`).toBe(true);
      }
    }
    // The parallel turn overlapped on the device too.
    const pan = intervals.find((i) => i.joints.join() === "shoulder_pan")!;
    const wrist3 = intervals.find((i) => i.joints.join() === "wrist_3")!;
    expect(Math.min(pan.to, wrist3.to)).toBeGreaterThan(Math.max(pan.from, wrist3.from));
    // The timed-out motion was sent once and reached; the unknown one really stalled.
    expect(intervals.filter((i) => i.joints.includes("shoulder_lift"))).toEqual([expect.objectContaining({ outcome: "reached" })]);
    expect(intervals.filter((i) => i.joints.includes("wrist_2"))).toEqual([expect.objectContaining({ outcome: "stalled" })]);
  });

  it("serves the console and the API: the unknown waits there, and an operator's confirmation shows in the narrative", async () => {
    const url = /console +(http:\/\/127\.0\.0\.1:\d+)\/console#token=(\w+)/.exec(out);
    expect(url, out).not.toBeNull();
    const [, base, token] = url as unknown as [string, string, string];
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    await page.text();

    const unknownId = /an unknown outcome awaits an operator: (act_\w+)/.exec(out)?.[1];
    expect(unknownId, out).toBeDefined();
    const auth = { authorization: `Bearer ${token}` };
    const listed: unknown = await (await fetch(`${base}/v1/actions?state=unknown`, { headers: auth })).json();
    expect(JSON.stringify(listed)).toContain(unknownId);

    const confirm = await fetch(`${base}/v1/actions/${unknownId}/confirm`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ outcome: "not_done", operator: "test-operator", note: "checked the arm" }),
    });
    expect(confirm.status, await confirm.clone().text()).toBe(200);
    await confirm.text();
    await waitFor(`action ${unknownId} (move_joints on wrist_2) is now confirmed_not_done by test-operator`, 10_000);
  });

  it("stops cleanly on SIGINT: exit 0, simulator gone", async () => {
    const demoPid = Number(/armbridge demo \(pid (\d+)\)/.exec(out)?.[1]);
    const simPid = Number(/firmware-sim \(pid (\d+)/.exec(out)?.[1]);
    expect(alive(demoPid)).toBe(true);
    expect(alive(simPid)).toBe(true);
    // Ctrl-C reaches the demo; it shuts the simulator down itself.
    process.kill(demoPid, "SIGINT");
    let timer: NodeJS.Timeout | undefined;
    const bounded = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 20_000)));
    const result = await Promise.race([exited, bounded]);
    clearTimeout(timer);
    expect(result, `${out}\n${err}`).toEqual([0, null]);
    expect(out).toContain("Stopped cleanly.");
    expect(alive(simPid)).toBe(false);
  }, 30_000);
});
