import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../firmware-sim/startSimulator.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import { Cameras } from "../../src/cameras/Cameras.js";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { freshPoseOf } from "../../src/cameras/freshPose.js";
import { namedColour } from "../../src/imaging/sim/namedColour.js";
import { TopDownCamera } from "../../src/imaging/sim/TopDownCamera.js";
import { FileSource } from "../../src/cameras/sources/FileSource.js";
import { HttpSnapshotSource } from "../../src/cameras/sources/HttpSnapshotSource.js";
import { RosCompressedImageSource } from "../../src/cameras/sources/RosCompressedImageSource.js";
import { SimCameraSource } from "../../src/cameras/sources/SimCameraSource.js";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError, type ErrorCode } from "../../src/errors.js";
import { armKinematicsOf, jointVectorOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { createRos2TransportOnDouble, type Ros2OnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { centroidOf } from "../support/centroidOf.js";

const config = loadConfig();
const overhead = config.cameras.find((c) => c.name === "overhead")!;
/** One real JPEG from the simulated camera (arm at home). */
let jpeg: Buffer;
let dir: string;

beforeAll(() => {
  jpeg = new SimCameraSource({
    camera: overhead,
    arm: config,
    pose: () => ({ pose: config.arm.namedPoses.home!, stampMs: Date.now() }),
  }).render().bytes;
  dir = mkdtempSync(join(tmpdir(), "armb-camsrc-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function codeOf(p: Promise<unknown>): Promise<ErrorCode | "resolved"> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    if (isArmbridgeError(error)) return error.code;
    throw error;
  }
}

/** A raw TCP server on 127.0.0.1:0 answering each connection with `respond`. */
async function rawServer(
  respond: (socket: Socket, first: Buffer) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
    s.once("data", (first: Buffer) => respond(s, first));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/?action=snapshot`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
/** A server that answers the JPEG only to a request carrying exactly this Authorization header. */
async function rawServerChecking(authorization: string): Promise<{ url: string; close(): Promise<void> }> {
  return rawServer((sock, first) => {
    let head = first.toString("latin1");
    const answer = (): void => {
      const ok = head.toLowerCase().includes(`authorization: ${authorization.toLowerCase()}\r\n`);
      sock.end(
        ok
          ? Buffer.concat([Buffer.from("HTTP/1.0 200 OK\r\nContent-type: image/jpeg\r\n\r\n"), jpeg])
          : "HTTP/1.0 401 Unauthorized\r\n\r\n",
      );
    };
    if (head.includes("\r\n\r\n")) return answer();
    sock.on("data", (d: Buffer) => {
      head += d.toString("latin1");
      if (head.includes("\r\n\r\n")) answer();
    });
  });
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe("HTTP snapshot source", () => {
  it("firmware-sim --camera-port serves mjpg-streamer-style snapshots rendered from the simulator's TRUE joint state", async () => {
    const sim = await startSimulator({ link: "tcp", port: 0, cameraPort: 0, logger: pino({ level: "silent" }) });
    closers.push(() => sim.close());
    expect(sim.camera).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?action=snapshot$/);
    // Move the simulated arm directly (no bridge): the camera must show where the arm truly is.
    const truth = { ...config.arm.namedPoses.ready! };
    const axes = Object.keys(sim.arm.positionsByName());
    const reply = sim.arm.move({
      actionId: "cam-truth",
      targets: axes.map((name, axis) => ({ axis, position: truth[name] ?? sim.arm.positionsByName()[name] ?? 0 })),
      speed: 1,
      durationMs: 1500,
    });
    expect(reply.kind).toBe("action");
    for (const until = Date.now() + 15_000; sim.arm.activeActionIds().length > 0 && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 50));
    expect(sim.arm.activeActionIds()).toEqual([]);
    const askedAt = Date.now();
    const frame = await new HttpSnapshotSource({ camera: "sim_http", url: String(sim.camera), timeoutMs: 5000 }).grab(
      AbortSignal.timeout(10_000),
    );
    const answeredAt = Date.now();
    expect([frame.format, frame.width, frame.height]).toEqual(["jpeg", 640, 480]);
    expect(frame.captureTimeFrom).toBe("x_timestamp");
    // The simulator renders a snapshot when asked: its X-Timestamp falls inside our request, however slow the machine.
    expect(frame.ageMs).toBeGreaterThanOrEqual(0);
    expect(frame.ageMs).toBeLessThanOrEqual(answeredAt - askedAt + 1);
    const kin = armKinematicsOf(config)!;
    const tip = positionOf(kin.chain.tip(jointVectorOf(kin, sim.arm.positionsByName())!));
    const marker = centroidOf(decodeImage(frame.bytes), [255, 255, 255], 90);
    const expected = new TopDownCamera(overhead.sim).toNormalised(tip)!;
    expect(Math.hypot(marker.point[0] - expected[0], marker.point[1] - expected[1])).toBeLessThan(4);
  }, 30_000);

  it("a monotonic X-Timestamp (seconds since the camera booted, as V4L2 stamps are) is not taken for wall time", async () => {
    const s = await rawServer((sock) =>
      sock.end(
        Buffer.concat([
          Buffer.from("HTTP/1.0 200 OK\r\nContent-type: image/jpeg\r\nX-Timestamp: 8123.456789\r\n\r\n"),
          jpeg,
        ]),
      ),
    );
    closers.push(() => s.close());
    const frame = await new HttpSnapshotSource({ camera: "c", url: s.url, timeoutMs: 2000 }).grab(
      AbortSignal.timeout(5000),
    );
    expect(frame.captureTimeFrom).toBe("received");
    expect(frame.notes.join(" ")).toMatch(/monotonic/);
  });

  it.each([
    [
      "a body cut short (no Content-Length: only the JPEG end marker tells)",
      "ARMB_ERR_CAMERA_FRAME_INVALID",
      (s: Socket): void =>
        void s.end(
          Buffer.concat([
            Buffer.from("HTTP/1.0 200 OK\r\nContent-type: image/jpeg\r\n\r\n"),
            jpeg.subarray(0, jpeg.length >> 1),
          ]),
        ),
    ],
    [
      "a web page instead of the snapshot",
      "ARMB_ERR_CAMERA_FRAME_INVALID",
      (s: Socket): void => void s.end("HTTP/1.0 200 OK\r\nContent-type: text/html\r\n\r\n<html>stream</html>"),
    ],
    [
      "404",
      "ARMB_ERR_CAMERA_UNAVAILABLE",
      (s: Socket): void => void s.end("HTTP/1.0 404 Not Found\r\nContent-type: text/plain\r\n\r\n404: Not Found!\r\n"),
    ],
    [
      "a camera that never answers (mjpg-streamer waiting for a frame that never comes)",
      "ARMB_ERR_CAMERA_UNAVAILABLE",
      (_s: Socket): void => undefined,
    ],
  ] as const)("%s → %s", async (_name, code, respond) => {
    const s = await rawServer(respond);
    closers.push(() => s.close());
    expect(
      await codeOf(new HttpSnapshotSource({ camera: "c", url: s.url, timeoutMs: 300 }).grab(AbortSignal.timeout(5000))),
    ).toBe(code);
  });

  it("credentials in the URL go as HTTP Basic, and no message ever shows the password", async () => {
    const s = await rawServer((sock) => {
      sock.end("HTTP/1.0 401 Unauthorized\r\nContent-type: text/plain\r\n\r\n401: Not Authenticated!\r\n");
    });
    closers.push(() => s.close());
    const withAuth = await rawServerChecking("Basic " + Buffer.from("admin:s3cret pw").toString("base64"));
    closers.push(() => withAuth.close());
    const ok = await new HttpSnapshotSource({
      camera: "c",
      url: withAuth.url.replace("http://", "http://admin:s3cret%20pw@"),
      timeoutMs: 2000,
    }).grab(AbortSignal.timeout(5000));
    expect(ok.bytes.equals(jpeg)).toBe(true);
    try {
      await new HttpSnapshotSource({
        camera: "c",
        url: s.url.replace("http://", "http://admin:s3cret@"),
        timeoutMs: 2000,
      }).grab(AbortSignal.timeout(5000));
      expect.unreachable();
    } catch (error) {
      expect(isArmbridgeError(error, "ARMB_ERR_CAMERA_UNAVAILABLE")).toBe(true);
      expect((error as Error).message).toMatch(/401/);
      expect((error as Error).message).not.toMatch(/s3cret/);
    }
  });

  it("nothing listening → ARMB_ERR_CAMERA_UNAVAILABLE", async () => {
    const s = await rawServer(() => undefined);
    const url = s.url;
    await s.close();
    expect(
      await codeOf(new HttpSnapshotSource({ camera: "c", url, timeoutMs: 1000 }).grab(AbortSignal.timeout(5000))),
    ).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
  });
});

describe("file source", () => {
  it("a whole file: its mtime is the capture time", async () => {
    const path = join(dir, "whole.jpg");
    writeFileSync(path, jpeg);
    const t = new Date(Date.now() - 10_000);
    utimesSync(path, t, t);
    const frame = await new FileSource({ camera: "f", path }).grab(AbortSignal.timeout(5000));
    expect(frame.captureTimeFrom).toBe("mtime");
    expect(Math.abs(frame.capturedAtMs - t.getTime())).toBeLessThan(1000);
    expect(frame.ageMs).toBeGreaterThanOrEqual(9000);
  });

  it("a frame caught mid-write is read again once the writer has finished", async () => {
    const path = join(dir, "updating.jpg");
    writeFileSync(path, jpeg.subarray(0, 1000));
    const finish = setTimeout(() => writeFileSync(path, jpeg), 40);
    try {
      const frame = await new FileSource({ camera: "f", path }).grab(AbortSignal.timeout(5000));
      expect(frame.bytes.equals(jpeg)).toBe(true);
      expect(frame.notes.join(" ")).toMatch(/mid-frame/);
    } finally {
      clearTimeout(finish);
    }
  });

  it("a file that stays partial → ARMB_ERR_CAMERA_FRAME_INVALID; a missing one → ARMB_ERR_CAMERA_UNAVAILABLE", async () => {
    const path = join(dir, "partial.png");
    writeFileSync(path, jpeg.subarray(0, 2000));
    expect(await codeOf(new FileSource({ camera: "f", path }).grab(AbortSignal.timeout(5000)))).toBe(
      "ARMB_ERR_CAMERA_FRAME_INVALID",
    );
    expect(
      await codeOf(new FileSource({ camera: "f", path: join(dir, "nope.jpg") }).grab(AbortSignal.timeout(5000))),
    ).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
  });
});

describe("ROS sensor_msgs/CompressedImage source (on the rclnodejs double)", () => {
  let ros: Ros2OnDouble;
  const TOPIC = "/overhead/image_raw/compressed";
  afterEach(async () => {
    await ros?.close();
  });

  async function onSimTime(rate = 0.5): Promise<Ros2OnDouble> {
    ros = await createRos2TransportOnDouble(
      config,
      {},
      { simTimeRate: rate, argv: ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"] },
    );
    await ros.transport.open(AbortSignal.timeout(10_000));
    return ros;
  }

  it("header.stamp on the sim clock is the capture time, aged on the node's (sim) clock; an old stamp is stale", async () => {
    const { host, double } = await onSimTime();
    const source = new RosCompressedImageSource({ camera: "overhead", topic: TOPIC, topics: host.imageTopics });
    try {
      const pending = source.grab(AbortSignal.timeout(5000));
      const publishedAt = Date.now();
      expect(double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg })).toBe(1);
      const frame = await pending;
      const receivedAt = Date.now();
      expect(frame.clock).toBe("ros");
      expect(frame.captureTimeFrom).toBe("header_stamp");
      // Sim time starts at 0: judged on the wall clock this frame would look 56 years old. On the sim
      // clock (half speed) it is no older than the wall time between publishing and receiving it.
      expect(frame.ageMs).toBeGreaterThanOrEqual(0);
      expect(frame.ageMs).toBeLessThanOrEqual(receivedAt - publishedAt + 1);
    } finally {
      source.close();
    }
  });

  it("a stamp 5 s behind the sim clock is 5 s old, whatever the wall clock did (sim clock at 20×)", async () => {
    const { host, double } = await onSimTime(20);
    const source = new RosCompressedImageSource({ camera: "overhead", topic: TOPIC, topics: host.imageTopics });
    try {
      for (const until = Date.now() + 10_000; double.world.now() < 6000 && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 20));
      double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg, stampMs: double.world.now() - 5000 });
      const old = await source.grab(AbortSignal.timeout(5000));
      expect(old.captureTimeFrom).toBe("header_stamp");
      expect(old.ageMs).toBeGreaterThan(4900);
      // Far less than the wall clock says a 6-second-old sim epoch would be.
      expect(old.ageMs).toBeLessThan(60_000);
    } finally {
      source.close();
    }
  });

  it("subscribes with sensor-data QoS: a best-effort camera publisher reaches it, where a default (RELIABLE) subscription gets nothing", async () => {
    const { host, double } = await onSimTime();
    const source = new RosCompressedImageSource({ camera: "overhead", topic: TOPIC, topics: host.imageTopics });
    let reliableGot = 0;
    // A default (RELIABLE) subscription on the host's node, for comparison.
    const node = [...double.rcl.nodes][0]!;
    const reliable = node.createSubscription("sensor_msgs/msg/CompressedImage", TOPIC, () => reliableGot++);
    try {
      expect(
        double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg, reliability: "best_effort" }),
      ).toBe(1);
      expect((await source.grab(AbortSignal.timeout(5000))).bytes.equals(jpeg)).toBe(true);
      expect(reliableGot).toBe(0);
    } finally {
      node.destroySubscription(reliable);
      source.close();
    }
  });

  it("a zero stamp or one ahead of the node's clock falls back to the receive time, saying why", async () => {
    const { host, double } = await onSimTime();
    const source = new RosCompressedImageSource({ camera: "overhead", topic: TOPIC, topics: host.imageTopics });
    try {
      double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg, stampMs: 0 });
      await new Promise((r) => setTimeout(r, 50));
      const zero = await source.grab(AbortSignal.timeout(5000));
      expect([zero.captureTimeFrom, zero.notes.join(" ")]).toEqual(["received", expect.stringMatching(/zero/)]);
      double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg, stampMs: double.world.now() + 60_000 });
      await new Promise((r) => setTimeout(r, 50));
      const ahead = await source.grab(AbortSignal.timeout(5000));
      expect([ahead.captureTimeFrom, ahead.notes.join(" ")]).toEqual(["received", expect.stringMatching(/ahead/)]);
    } finally {
      source.close();
    }
  });

  it("no message yet → ARMB_ERR_CAMERA_UNAVAILABLE when the wait ends; a truncated JPEG → ARMB_ERR_CAMERA_FRAME_INVALID", async () => {
    const { host, double } = await onSimTime();
    const source = new RosCompressedImageSource({ camera: "overhead", topic: TOPIC, topics: host.imageTopics });
    try {
      expect(await codeOf(source.grab(AbortSignal.timeout(200)))).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
      double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg.subarray(0, 500) });
      await new Promise((r) => setTimeout(r, 50));
      expect(await codeOf(source.grab(AbortSignal.timeout(2000)))).toBe("ARMB_ERR_CAMERA_FRAME_INVALID");
    } finally {
      source.close();
    }
  });

  it("a Bridge on a ROS host gives a ros_topic camera the host's camera topics: get_camera_image returns the published frame", async () => {
    const rosConfig = parseConfig(
      {
        arm: {
          name: "ros_cam_arm",
          joints: config.arm.joints.map((j) => ({
            name: j.name,
            min: j.min,
            max: j.max,
            max_velocity: j.maxVelocity,
            max_acceleration: j.maxAcceleration,
            home: j.home,
          })),
        },
        cameras: [{ name: "wrist", source: { ros_topic: TOPIC } }],
      },
      "ros camera config",
    );
    ros = await createRos2TransportOnDouble(rosConfig);
    const bridge = await Bridge.start({
      config: rosConfig,
      transport: { kind: "custom", transport: ros.transport, imageTopics: ros.host.imageTopics },
      dataDir: ":memory:",
    });
    try {
      ros.double.world.publishCompressedImage(TOPIC, { format: "jpeg", data: jpeg });
      const [r] = await bridge.executor.execute([
        { id: "ros-cam-1", name: "get_camera_image", args: { camera: "wrist" } },
      ]);
      expect(r!.result.status, r!.result.message).toBe("done");
      expect(Buffer.from(r!.result.images?.[0]?.data ?? "", "base64").equals(jpeg)).toBe(true);
      // Without a calibration there is nothing to map a point through: no move_to_image_point.
      expect(bridge.registry.get("move_to_image_point")).toBeUndefined();
    } finally {
      await bridge.close();
    }
  });
});

describe("Cameras", () => {
  it("labels a frame stale against the camera's own stale_after_ms", async () => {
    const path = join(dir, "stale.jpg");
    writeFileSync(path, jpeg);
    const t = new Date(Date.now() - 5000);
    utimesSync(path, t, t);
    const cfg = parseConfig({
      arm: { joints: [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] },
      cameras: [
        { name: "a", source: { file: path }, stale_after_ms: 1000 },
        { name: "b", source: { file: path }, stale_after_ms: 60_000 },
      ],
    });
    const cameras = new Cameras({ config: cfg, pose: () => undefined });
    expect((await cameras.capture("a", AbortSignal.timeout(5000))).stale).toBe(true);
    expect((await cameras.capture("b", AbortSignal.timeout(5000))).stale).toBe(false);
    // A ROS camera without the ros2 transport says so on every grab.
    const rosOnly = new Cameras({
      config: parseConfig({
        arm: { joints: [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] },
        cameras: [{ name: "r", source: { ros_topic: "/x" } }],
      }),
      pose: () => undefined,
    });
    expect(await codeOf(rosOnly.capture("r", AbortSignal.timeout(1000)))).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
  });

  it("the simulated camera draws blocks where the scene puts them (red found in the rendered frame)", () => {
    const frame = new SimCameraSource({
      camera: { ...overhead, sim: { ...overhead.sim, format: "png" } },
      arm: config,
      pose: () => undefined,
    }).render();
    expect(centroidOf(decodeImage(frame.bytes), namedColour("red")).pixels).toBeGreaterThan(30);
  });
});

describe("freshPoseOf (the simulated camera's pose in a bridge)", () => {
  const status = (stampMs: number) => ({
    stampMs,
    axes: { j: { position: stampMs / 1000, velocity: 0, moving: false } },
    faults: [],
    actions: [],
  });
  it("an old newest status is not drawn as it is: the next status to arrive is", async () => {
    let latest = status(Date.now() - 3000);
    const listeners = new Set<(s: ReturnType<typeof status>) => void>();
    const transport = {
      latestStatus: () => latest,
      onStatus: (l: (s: ReturnType<typeof status>) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const { fresh } = freshPoseOf(transport);
    const pending = fresh(AbortSignal.timeout(5000));
    latest = status(Date.now());
    for (const l of listeners) l(latest);
    const got = await pending;
    expect(got?.stampMs).toBe(latest.stampMs);
    expect(listeners.size).toBe(0);
  });
  it("with no status arriving, the newest there is after a short wait (its age goes with the picture)", async () => {
    const old = status(Date.now() - 3000);
    const { fresh } = freshPoseOf({ latestStatus: () => old, onStatus: () => () => undefined });
    expect((await fresh(AbortSignal.timeout(5000)))?.stampMs).toBe(old.stampMs);
  });
});
