import { createServer, type Server, type Socket } from "node:net";
import type { Logger } from "pino";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import type { CameraConfig } from "../src/config/sections/cameras.js";
import { MIME_TYPES, type ImageFormat } from "../src/imaging/encodeImage.js";
import { SharedCapture } from "../src/imaging/SharedCapture.js";
import { armViewOf } from "../src/imaging/sim/armViewOf.js";
import { RENDER_WORKER } from "../src/imaging/sim/RenderWorker.js";
import { listenOnLoopback } from "./links/listenOnLoopback.js";

export interface CameraServer {
  /** The snapshot URL of the first simulated camera: http://127.0.0.1:PORT/?action=snapshot */
  readonly url: string;
  close(): Promise<void>;
}

/** A request line and headers are never longer than this; anything longer is not a camera client. */
const MAX_REQUEST_BYTES = 8192;
/** The longest a snapshot request waits for its frame to be drawn. */
const FRAME_WAIT_MS = 10_000;

/**
 * The simulator's cameras served the way mjpg-streamer serves a snapshot
 * (jacksonliam/mjpg-streamer commit 03b007da, plugins/output_http/httpd.c
 * `send_snapshot`): `GET /?action=snapshot` answers `HTTP/1.0 200 OK` with
 * `Connection: close`, `Content-type: image/jpeg`, `X-Timestamp: sec.usec`
 * and NO Content-Length — the body ends when the connection closes. Each
 * request renders a fresh frame from the simulator's TRUE joint state (not
 * what the bridge believes), so a test can compare the two. `&camera=NAME`
 * picks another `source: sim` camera of the config. 127.0.0.1 only.
 */
export async function startCameraServer(options: {
  readonly config: ArmConfig;
  readonly port: number;
  readonly positions: () => Readonly<Record<string, number>>;
  readonly logger: Logger;
}): Promise<CameraServer> {
  const sims = options.config.cameras.filter((c) => c.source.kind === "sim");
  const sources = new Map(sims.map((c) => [c.name, sharedSnapshots(options.config, c, options.positions)]));
  const first = sims[0]?.name;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let head = "";
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (head.length > MAX_REQUEST_BYTES) return void socket.destroy();
      if (!head.includes("\r\n\r\n")) return;
      socket.removeAllListeners("data");
      const [method, target] = head.split("\r\n", 1)[0]?.split(" ") ?? [];
      const url = new URL(target ?? "/", "http://127.0.0.1");
      const name = url.searchParams.get("camera") ?? first;
      const source = name === undefined ? undefined : sources.get(name);
      if (method !== "GET" || url.pathname !== "/" || url.searchParams.get("action") !== "snapshot" || !source) {
        socket.end(
          `HTTP/1.0 404 Not Found\r\nContent-type: text/plain\r\nConnection: close\r\n\r\n404: Not Found!\r\nGET /?action=snapshot${sims.length > 1 ? ` [&camera=${sims.map((c) => c.name).join("|")}]` : ""}\r\n`,
        );
        return;
      }
      // Drawn off the event loop, and shared by requests that come while it is drawn: the simulator's own link to the bridge (its watchdog) must not wait on pictures.
      source(AbortSignal.timeout(FRAME_WAIT_MS)).then(
        (frame) => {
          const seconds = Math.floor(frame.capturedAtMs / 1000);
          const micros = Math.round((frame.capturedAtMs % 1000) * 1000);
          socket.write(
            "HTTP/1.0 200 OK\r\nConnection: close\r\nServer: armbridge-sim\r\nCache-Control: no-store, no-cache, must-revalidate, pre-check=0, post-check=0, max-age=0\r\nPragma: no-cache\r\n" +
              `Content-type: ${MIME_TYPES[frame.format]}\r\nX-Timestamp: ${seconds}.${String(micros).padStart(6, "0")}\r\n\r\n`,
          );
          socket.end(frame.bytes);
        },
        (error: unknown) => {
          options.logger.warn({ err: (error as Error).message }, "no camera frame to serve");
          socket.end(
            "HTTP/1.0 503 Service Unavailable\r\nContent-type: text/plain\r\nConnection: close\r\n\r\n503: no frame\r\n",
          );
        },
      );
    });
  });
  const port = await listenOnLoopback(server, options.port);
  options.logger.info({ port, cameras: [...sources.keys()] }, "camera snapshots served");
  return {
    url: `http://127.0.0.1:${port}/?action=snapshot`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A snapshot: the encoded picture and when the pose it draws was read (epoch ms). */
export interface Snapshot {
  readonly bytes: Buffer;
  readonly format: ImageFormat;
  readonly capturedAtMs: number;
}

/**
 * One camera's snapshots of the true joint state, drawn off the event loop
 * (the render worker); requests that come while one is drawn share it, so a
 * burst of requests is one drawing, not a queue of them.
 */
export function sharedSnapshots(
  config: ArmConfig,
  camera: CameraConfig,
  positions: () => Readonly<Record<string, number>>,
): (signal: AbortSignal) => Promise<Snapshot> {
  const drawing = new SharedCapture<Snapshot>();
  const draw = async (): Promise<Snapshot> => {
    const capturedAtMs = Date.now();
    const arm = armViewOf(config, positions());
    const rendered = await RENDER_WORKER.render({ view: camera.sim, scene: config.scene, arm });
    return { bytes: rendered.bytes, format: camera.sim.format, capturedAtMs };
  };
  return (signal) => drawing.join(signal, draw, () => new Error("the request ended before the frame was drawn"));
}
