import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { RawHost } from "./RawHost.js";
import { readEffects } from "./readEffects.js";

// The watchdog halts motion when the host is silent, never when the
// simulator itself could not run: a real controller's UART receives bytes
// while its main loop is busy, so a frame already on the wire when the
// watchdog's time runs out counts as heard. Under full-suite load the
// simulator's process is starved for longer than the watchdog; when it runs
// again its expired timer used to fire before the frames waiting in its
// socket were read, and it stopped a motion whose host had never gone quiet
// (a console HALT test then saw that motion settle `unknown`).
//
// Reproduced here deterministically: the simulator runs in this process, so
// blocking this event loop starves it exactly as load does, with the host's
// frame written before the block.

const PAN = 0;
let sim: RunningSimulator | undefined;
let host: RawHost | undefined;
let dir: string | undefined;

afterEach(async () => {
  await host?.close();
  host = undefined;
  await sim?.close();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Blocks this process's event loop, as a starved simulator is. */
function starve(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else in this process runs
  }
}

async function movingSim(): Promise<{ log: string }> {
  dir = mkdtempSync(join(tmpdir(), "armbridge-watchdog-"));
  const log = join(dir, "effects.jsonl");
  sim = await startSimulator({
    link: "tcp",
    port: 0,
    seed: 1,
    effectsLog: log,
    logger: pino({ level: "silent" }),
    watchdogMs: 300,
    motionTime: { kind: "fixed", ms: 5000 },
  });
  host = await RawHost.connect(sim.link);
  const reply = await host.request({
    op: "MOVE",
    seq: host.seq(),
    actionId: "act-starved",
    expectBootId: sim.arm.bootId,
    speed: 1,
    durationMs: 0,
    targets: [{ axis: PAN, position: 1.0 }],
  });
  expect(reply).toMatchObject({ op: "ACTION", record: { state: "executing" } });
  return { log };
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("firmware-sim's watchdog under a starved process", () => {
  it("a host frame already sent when the watchdog's time ran out counts as heard: the motion goes on", async () => {
    const { log } = await movingSim();
    await pause(100);
    // Starved at the end of a loop turn (the check phase), so that when it runs again the timers come
    // before the socket is read, as in a process the scheduler left waiting.
    await new Promise<void>((r) => setImmediate(r));
    host!.send({ op: "PING", seq: host!.seq() });
    // Longer than the watchdog since the simulator last ran.
    starve(700);
    await pause(100);
    expect(sim!.arm.activeActionIds()).toEqual(["act-starved"]);
    expect(sim!.arm.faults()).not.toContain("watchdog");
    expect(readEffects(log).filter((e) => e.event === "motion_end")).toEqual([]);
  });

  it("a host that is really silent is still caught: the watchdog stops the motion", async () => {
    const { log } = await movingSim();
    await pause(600);
    expect(sim!.arm.faults()).toContain("watchdog");
    const end = readEffects(log).find((e) => e.event === "motion_end" && e.action_id === "act-starved");
    expect(end?.outcome).toBe("stopped");
  });
});
