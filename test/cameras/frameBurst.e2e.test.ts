import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// Real processes from dist/: firmware-sim (its watchdog on: it stops motion when the host is silent) and
// `armbridge serve` with the default arm's simulated overhead camera, asked for 40 frames at once mid-motion.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping the frame-burst test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "frame-burst-token";

describe.skipIf(!built)("a burst of camera frames during a motion (needs dist: npm run build)", () => {
  let dir = "";
  let sim: ReadyProcess | undefined;
  let serve: ReadyProcess | undefined;
  const effects = (): string => join(dir, "effects.jsonl");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-frame-burst-"));
    // A tighter watchdog than the default 1000 ms: the link must never go quiet for long, on a busy test machine too.
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--watchdog-ms", "500", "--effects-log", effects()]);
    serve = await startReady(CLI, [
      "serve",
      "--serial",
      String(sim.ready.link),
      "--http",
      "127.0.0.1:0",
      "--token",
      TOKEN,
      "--data",
      join(dir, "data"),
    ]);
  }, 60_000);

  afterAll(async () => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("40 concurrent frame requests while the arm moves: every request gets a frame, and the motion ends reached — no watchdog stop in the effects log", async () => {
    const base = String(serve!.ready.http);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const moving = fetch(`${base}/v1/calls`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        calls: [{ id: "burst-move", name: "move_joints", args: { positions: { wrist_3: 2.4 }, speed: 0.3 } }],
        deadline_ms: 60_000,
      }),
    }).then(
      async (r) =>
        (await r.json()) as { responses: { response: { output?: { status: string; action_id?: string } } }[] },
    );
    while (!readEffects(effects()).some((e) => e.event === "motion_start")) await new Promise((r) => setTimeout(r, 20));
    const frames = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${base}/v1/cameras/overhead/frame`, { headers: auth }).then(async (r) => ({
          status: r.status,
          bytes: (await r.arrayBuffer()).byteLength,
        })),
      ),
    );
    const result = (await moving).responses[0]!.response.output!;
    expect(frames.filter((f) => f.status !== 200 || f.bytes === 0)).toEqual([]);
    const ends = readEffects(effects()).filter((e) => e.event === "motion_end");
    expect(ends.map((e) => (e.event === "motion_end" ? [e.outcome, e.detail] : []))).toEqual([
      ["reached", expect.not.stringMatching(/watchdog/) as unknown],
    ]);
    expect(result.status).toBe("done");
  });
});
