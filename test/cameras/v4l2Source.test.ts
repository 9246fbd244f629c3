import { execFileSync, spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { inspectImage } from "../../src/cameras/inspectImage.js";
import { JpegStreamSplitter } from "../../src/cameras/sources/JpegStreamSplitter.js";
import { V4l2Source } from "../../src/cameras/sources/V4l2Source.js";
import { isArmbridgeError } from "../../src/errors.js";

const ffmpeg = spawnSync("ffmpeg", ["-version"], { stdio: "ignore" }).status === 0;

/** Real JPEGs from ffmpeg's test pattern, back to back as its `-f mjpeg` writes them. */
function testStream(frames: number): Buffer {
  return execFileSync("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-f",
    "lavfi",
    "-i",
    `testsrc=size=160x120:rate=10`,
    "-frames:v",
    String(frames),
    "-c:v",
    "mjpeg",
    "-f",
    "mjpeg",
    "pipe:1",
  ]);
}

describe("JpegStreamSplitter", () => {
  /** A minimal JPEG by its markers: SOI, an APP1 whose payload holds FF D9 and FF D8, SOF0, SOS, entropy data with stuffing and a restart marker, EOI. */
  const tricky = Buffer.from([
    0xff, 0xd8, 0xff, 0xe1, 0x00, 0x08, 0xff, 0xd9, 0xff, 0xd8, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x10,
    0x00, 0x10, 0x01, 0x01, 0x11, 0x00, 0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x12, 0xff, 0x00,
    0x34, 0xff, 0xd0, 0x56, 0xff, 0x00, 0xff, 0xd9,
  ]);

  it("cuts at each frame's EOI only, whatever the chunking, past FF D9 inside segments and stuffed entropy data", () => {
    const stream = Buffer.concat([Buffer.from([0x00, 0x13, 0xff]), tricky, tricky]);
    for (const size of [1, 2, 3, 7, stream.length]) {
      const s = new JpegStreamSplitter({ maxBytes: 1 << 20 });
      const frames: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) frames.push(...s.push(stream.subarray(i, i + size)));
      expect(
        frames.map((f) => f.equals(tricky)),
        `chunks of ${size}`,
      ).toEqual([true, true]);
      expect(s.discardedBytes).toBe(3);
    }
  });

  it("drops a frame that grows past the limit and finds the next one", () => {
    const s = new JpegStreamSplitter({ maxBytes: tricky.length + 10 });
    const endless = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02]), Buffer.alloc(200, 0x11)]);
    expect(s.push(endless)).toEqual([]);
    expect(s.push(tricky).map((f) => f.equals(tricky))).toEqual([true]);
  });

  it.skipIf(!ffmpeg)("splits ffmpeg's own MJPEG stream into whole images (skipped without ffmpeg on PATH)", () => {
    const stream = testStream(5);
    const frames = new JpegStreamSplitter({ maxBytes: 1 << 22 }).push(stream);
    expect(frames).toHaveLength(5);
    for (const f of frames)
      expect(inspectImage(f)).toMatchObject({ ok: true, format: "jpeg", width: 160, height: 120 });
    expect(Buffer.concat(frames).equals(stream)).toBe(true);
  });
});

describe.skipIf(!ffmpeg)("V4l2Source through ffmpeg (skipped without ffmpeg on PATH)", () => {
  let sources: V4l2Source[] = [];
  afterEach(() => {
    for (const s of sources) s.close();
    sources = [];
  });

  it("delivers whole JPEG frames with capture times from a generated stream (lavfi testsrc in place of a device)", async () => {
    const source = new V4l2Source({
      camera: "desk",
      device: "/dev/video0",
      width: 320,
      height: 240,
      fps: 15,
      input: ["-re", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15"],
    });
    sources.push(source);
    const frames = [];
    for (let i = 0; i < 4; i++) {
      const before = Date.now();
      frames.push({ frame: await source.grab(AbortSignal.timeout(10_000)), before });
      await new Promise((r) => setTimeout(r, 150));
    }
    for (const { frame, before } of frames) {
      expect(frame).toMatchObject({
        camera: "desk",
        source: "v4l2",
        format: "jpeg",
        width: 320,
        height: 240,
        clock: "wall",
        captureTimeFrom: "received",
      });
      expect(inspectImage(frame.bytes)).toMatchObject({ ok: true });
      // Captured no later than it was handed out, and not long before it was asked for: the stream is live.
      expect(frame.capturedAtMs).toBeLessThanOrEqual(Date.now());
      expect(frame.capturedAtMs).toBeGreaterThan(before - 1000);
      expect(frame.ageMs).toBeLessThan(1000);
    }
    const times = frames.map((f) => f.frame.capturedAtMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // testsrc draws a moving pattern and a counter: frames 150 ms apart differ.
    expect(frames[0]!.frame.bytes.equals(frames[3]!.frame.bytes)).toBe(false);
  });

  it("a device that is not there is ARMB_ERR_CAMERA_UNAVAILABLE with ffmpeg's reason (after the raw-capture retry)", async () => {
    const source = new V4l2Source({
      camera: "gone",
      device: "/dev/video-armbridge-test-missing",
      width: 640,
      height: 480,
      fps: 30,
    });
    sources.push(source);
    const error = await source.grab(AbortSignal.timeout(10_000)).catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_CAMERA_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/ffmpeg exited/);
  });

  it("once ffmpeg has stopped, the last frame is handed out aged (the camera then reads stale), saying so", async () => {
    const source = new V4l2Source({
      camera: "brief",
      device: "/dev/video0",
      width: 160,
      height: 120,
      fps: 10,
      input: ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-frames:v", "3"],
    });
    sources.push(source);
    await source.grab(AbortSignal.timeout(10_000));
    await new Promise((r) => setTimeout(r, 700));
    const later = await source.grab(AbortSignal.timeout(10_000));
    expect(later.ageMs).toBeGreaterThanOrEqual(500);
    expect(later.notes.join(" ")).toMatch(/ffmpeg has stopped/);
  });
});
