import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedSnapshots } from "../../firmware-sim/cameraServer.js";
import { Cameras } from "../../src/cameras/Cameras.js";
import { CAPTURES_IN_FLIGHT, CaptureSlots } from "../../src/cameras/CaptureSlots.js";
import { SimCameraSource } from "../../src/cameras/sources/SimCameraSource.js";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";

const config = loadConfig();
const overhead = config.cameras.find((c) => c.name === "overhead")!;
const ARM = { joints: [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] };
let jpeg: Buffer;
let dir: string;

beforeAll(() => {
  jpeg = new SimCameraSource({ camera: overhead, arm: config, pose: () => undefined }).render().bytes;
  dir = mkdtempSync(join(tmpdir(), "armb-capbounds-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An HTTP camera that counts the snapshots asked of it and holds each answer until `release()`. */
async function heldCamera(): Promise<{
  base: string;
  started: () => number;
  peak: () => number;
  release: () => void;
  close: () => Promise<void>;
}> {
  let started = 0;
  let open = 0;
  let peak = 0;
  let held: ServerResponse[] = [];
  let releasing = false;
  const answer = (res: ServerResponse): void => {
    open--;
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": jpeg.length }).end(jpeg);
  };
  const server: Server = createServer((_req: IncomingMessage, res) => {
    started++;
    open++;
    peak = Math.max(peak, open);
    if (releasing) answer(res);
    else held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    started: () => started,
    peak: () => peak,
    release: () => {
      releasing = true;
      const now = held;
      held = [];
      for (const res of now) answer(res);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Resolves once `cond` holds, looking every 10 ms (no time limit of its own: the test's is the bound). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}

describe("capture concurrency", () => {
  it("96 concurrent requests for one camera start one capture, and all 96 get its frame", async () => {
    const cam = await heldCamera();
    try {
      const cameras = new Cameras({
        config: parseConfig({ arm: ARM, cameras: [{ name: "big", source: { http: `${cam.base}/snap.jpg` } }] }),
        pose: () => undefined,
        slots: new CaptureSlots(),
      });
      const calls = Array.from({ length: 96 }, () => cameras.capture("big", AbortSignal.timeout(20_000)));
      await until(() => cam.started() > 0);
      // Every call has been made; give stragglers a turn to reach the camera before letting the one capture end.
      await new Promise((r) => setTimeout(r, 50));
      cam.release();
      const frames = await Promise.all(calls);
      expect(cam.started()).toBe(1);
      expect(frames.every((f) => f.bytes.equals(jpeg))).toBe(true);
      // Once it settled, the next request is a new capture (the frame is not cached).
      await cameras.capture("big", AbortSignal.timeout(20_000));
      expect(cam.started()).toBe(2);
    } finally {
      await cam.close();
    }
  });

  it("across many cameras, at most CAPTURES_IN_FLIGHT captures (their frame bytes) are under way at once", async () => {
    const cam = await heldCamera();
    try {
      const names = Array.from({ length: 10 }, (_, i) => `c${i}`);
      const cameras = new Cameras({
        config: parseConfig({
          arm: ARM,
          cameras: names.map((name) => ({ name, source: { http: `${cam.base}/${name}.jpg` } })),
        }),
        pose: () => undefined,
        slots: new CaptureSlots(),
      });
      const calls = names.flatMap((name) =>
        Array.from({ length: 10 }, () => cameras.capture(name, AbortSignal.timeout(20_000))),
      );
      await until(() => cam.started() >= CAPTURES_IN_FLIGHT);
      await new Promise((r) => setTimeout(r, 50));
      expect(cam.started()).toBe(CAPTURES_IN_FLIGHT);
      cam.release();
      await Promise.all(calls);
      expect(cam.peak()).toBeLessThanOrEqual(CAPTURES_IN_FLIGHT);
      expect(cam.started()).toBe(names.length);
    } finally {
      await cam.close();
    }
  });
});

describe("file camera on a FIFO", () => {
  it("is refused with a coded error before the call's deadline, and the other cameras keep delivering", async () => {
    const fifo = join(dir, "frame.jpg.fifo");
    execFileSync("mkfifo", [fifo]);
    const good = join(dir, "good.jpg");
    writeFileSync(good, jpeg);
    const cameras = new Cameras({
      config: parseConfig({
        arm: ARM,
        cameras: [
          ...Array.from({ length: 6 }, (_, i) => ({ name: `pipe${i}`, source: { file: fifo } })),
          { name: "good", source: { file: good } },
        ],
      }),
      pose: () => undefined,
      slots: new CaptureSlots(16),
    });
    try {
      // Six FIFO cameras at once: more than libuv's four pool threads, which a blocking open would each hold.
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const signal = AbortSignal.timeout(1500);
          try {
            await cameras.capture(`pipe${i}`, signal);
            return { code: "resolved", beforeDeadline: !signal.aborted };
          } catch (error) {
            return { code: isArmbridgeError(error) ? error.code : String(error), beforeDeadline: !signal.aborted };
          }
        }),
      );
      expect(outcomes).toEqual(
        Array.from({ length: 6 }, () => ({ code: "ARMB_ERR_CAMERA_UNAVAILABLE", beforeDeadline: true })),
      );
      const frame = await cameras.capture("good", AbortSignal.timeout(3000));
      expect(frame.bytes.equals(jpeg)).toBe(true);
    } finally {
      // Were a read blocked in open() on the FIFO, a writer end lets it go, so the pool's threads are freed for the rest of the run.
      closeSync(openSync(fifo, constants.O_RDWR));
    }
  });
});

/** What `work` gave, and how many times the event loop turned while it was under way (0 when it held the loop). */
async function withLoopTurns<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = (): void => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    running = false;
  }
}

describe("simulated camera drawing", () => {
  it("draws off the event loop (the loop keeps turning while a frame is drawn), the same picture as drawn in this thread", async () => {
    const camera = { ...overhead, sim: { ...overhead.sim, format: "png" as const } };
    const pose = { pose: config.arm.namedPoses.home!, stampMs: Date.now() };
    const source = new SimCameraSource({ camera, arm: config, pose: () => pose });
    const { value: frame, turns } = await withLoopTurns(source.grab(AbortSignal.timeout(30_000)));
    expect(turns).toBeGreaterThan(1);
    expect(frame.bytes.equals(source.render(pose).bytes)).toBe(true);
  });

  it("a kept frame (the pose kept, drawn when an operator's card opens it) is drawn off the event loop too, as kept", async () => {
    const camera = { ...overhead, sim: { ...overhead.sim, format: "png" as const } };
    const kept = { pose: config.arm.namedPoses.home!, stampMs: Date.now() };
    let pose = kept;
    const source = new SimCameraSource({ camera, arm: config, pose: () => pose });
    const later = source.deferred();
    // The arm moves on; the kept frame still shows the pose it was kept at.
    pose = { pose: config.arm.namedPoses.stow!, stampMs: Date.now() };
    const { value: frame, turns } = await withLoopTurns(later.draw());
    expect(turns).toBeGreaterThan(1);
    expect(frame.bytes.equals(source.render(kept).bytes)).toBe(true);
  });

  it("firmware-sim's snapshot requests that come while a frame is drawn share that one drawing", async () => {
    let poses = 0;
    const snapshot = sharedSnapshots(config, overhead, () => (poses++, config.arm.namedPoses.home!));
    const frames = await Promise.all(Array.from({ length: 40 }, () => snapshot(AbortSignal.timeout(30_000))));
    expect(poses).toBe(1);
    expect(new Set(frames.map((f) => f.bytes)).size).toBe(1);
  });
});
