import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedColour } from "../../../src/imaging/sim/namedColour.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { armKinematicsOf, jointVectorOf } from "../../../src/kinematics/armKinematics.js";
import { positionOf } from "../../../src/kinematics/rigidTransform.js";
import { locateColourInImage } from "../../../src/surfaces/gemini/locateColourInImage.js";

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
  to?: Record<string, number>;
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
    child = spawn("npm", ["start", "--ignore-scripts", "--silent", "--", "--data", join(dir, "data")], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
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

  const jsonLines = <T>(path: string): T[] =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as T);
  const effects = (): Effect[] => jsonLines<Effect>(join(dir, "data", "effects.jsonl"));

  it("narrates the four things, each computed from what happened", () => {
    const summary = out.slice(out.indexOf("What this session showed:"));
    const boxes = summary.split("\n").filter((l) => /^\s+\[[ x]\]/.test(l));
    expect(boxes, out).toHaveLength(4);
    for (const b of boxes) expect(b, out).toMatch(/^\s+\[x\]/);

    const parallel =
      /=> d1 \[\+(\d+)\.\.\+(\d+) ms\] and d2 \[\+(\d+)\.\.\+(\d+) ms\] ran together on disjoint joints/.exec(out);
    expect(parallel, out).not.toBeNull();
    const [a0, a1, b0, b1] = parallel!.slice(1).map(Number) as [number, number, number, number];
    expect(Math.min(a1, b1)).toBeGreaterThan(Math.max(a0, b0));

    const queued = /=> q2 shares elbow with q1: queued, it started at \+(\d+) ms, after q1 ended at \+(\d+) ms/.exec(
      out,
    );
    expect(queued, out).not.toBeNull();
    expect(Number(queued![1])).toBeGreaterThanOrEqual(Number(queued![2]));

    expect(out).toMatch(
      /t1: wait timed out after \d+ ms — the motion went on — observed reached at \+\d+ ms \(\d+ ms after the timeout\) -> done/,
    );
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
    expect(intervals.filter((i) => i.joints.includes("shoulder_lift"))).toEqual([
      expect.objectContaining({ outcome: "reached" }),
    ]);
    expect(intervals.filter((i) => i.joints.includes("wrist_2"))).toEqual([
      expect.objectContaining({ outcome: "stalled" }),
    ]);
  });

  it("plays the ER session first, on an arm of its own: the model's point is read from the picture it was given, and the arm went above the block (FK of the joints the arm reported)", () => {
    const erDir = join(dir, "data", "er");
    // The frames it was given are saved, their paths printed.
    const frames = [...out.matchAll(/sent to the model; saved to (\S+\.(?:jpg|png))/g)].map((m) =>
      isAbsolute(m[1]!) ? m[1]! : resolve(ROOT, m[1]!),
    );
    expect(frames, out).toHaveLength(2);
    for (const f of frames) expect(statSync(f).size).toBeGreaterThan(1000);
    expect(frames.every((f) => f.startsWith(join(erDir, "frames")))).toBe(true);

    // The point in the model's call is the red block's blob in the first saved frame, found independently here.
    type Line = {
      type: string;
      content?: {
        parts: { functionCall?: { id: string; name: string; args: { point?: [number, number]; height_m?: number } } }[];
      };
      responses?: { id: string; response: { output?: { action_id?: string; status: string } } }[];
    };
    const transcript = jsonLines<Line>(join(erDir, "transcript.jsonl"));
    const reachCall = transcript
      .flatMap((l) => (l.type === "model_turn" ? (l.content?.parts ?? []) : []))
      .find((p) => p.functionCall?.name === "move_to_image_point")!.functionCall!;
    const seen = locateColourInImage(readFileSync(frames[0]!), namedColour("red"))!;
    expect(reachCall.args.point).toEqual([...seen.point]);
    const reach = transcript
      .flatMap((l) => (l.type === "responses" ? (l.responses ?? []) : []))
      .find((r) => r.id === reachCall.id)!.response.output!;
    expect(reach.status).toBe("done");

    // Ground truth on the ER arm: the reach ran once and reached; FK of where its joints came to rest is above the red block.
    const erEffects = jsonLines<Effect>(join(erDir, "effects.jsonl"));
    expect(erEffects.filter((e) => e.event === "motion_start" && e.action_id === reach.action_id)).toHaveLength(1);
    const end = erEffects.find((e) => e.event === "motion_end" && e.action_id === reach.action_id)!;
    expect(end.outcome).toBe("reached");
    const config = loadConfig(join(ROOT, "config", "sim-arm.yaml"));
    const kin = armKinematicsOf(config)!;
    const [x, y, z] = positionOf(kin.chain.tip(jointVectorOf(kin, end.to)!));
    const block = config.scene!.blocks.find((b) => b.name === "red_block")!;
    // Within a third of the 3 cm block's half-width: the camera sees the cube's top and sides a few mm outwards (docs/cameras.md).
    expect(
      Math.hypot(x - block.x, y - block.y),
      `tool tip at (${x}, ${y}), block at (${block.x}, ${block.y})`,
    ).toBeLessThan(0.01);
    expect(Math.abs(z - (config.scene!.table.z + reachCall.args.height_m!))).toBeLessThan(0.005);
    // The gripper closed after the reach, and nothing of this session reached the scripted session's arm.
    const closed = erEffects.find(
      (e) => e.event === "motion_end" && e.joints.includes("gripper") && (e.to?.gripper ?? 1) < 0.05 && e.t >= end.t,
    );
    expect(closed?.outcome).toBe("reached");
    const erActions = new Set(erEffects.map((e) => e.action_id));
    expect(effects().filter((e) => erActions.has(e.action_id))).toEqual([]);
    expect(out).toMatch(
      /\[x\] it pointed at a block and the arm moved above it: er_reach read \[\d+, \d+\] from \S+01-er_look-overhead\.jpg/,
    );
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
    // The session is a client of this serve: every motion it made is in this console's history, under its name.
    const byAgent = (await (
      await fetch(`${base}/v1/actions?client_kind=agent&limit=100`, { headers: auth })
    ).json()) as { actions: { call_id: string }[] };
    expect(byAgent.actions.map((a) => a.call_id).sort()).toEqual(["d1", "d2", "q1", "q2", "t1", "u1"]);

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
