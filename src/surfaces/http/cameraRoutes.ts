import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { MIME_TYPES } from "../../imaging/encodeImage.js";
import { imagePointToTable } from "../../cameras/imagePointToTable.js";
import { ArmbridgeError } from "../../errors.js";
import { parseInput } from "./parseInput.js";
import { serveRoute } from "./serveRoute.js";
import { FRAME_HEADERS, type CamerasList, type FrameHeadersView, type TablePointView } from "../../wire/CameraView.js";

const cameraParams = z.strictObject({ name: z.string().min(1).max(200) });
const pointQuery = z.strictObject({ y: z.coerce.number().min(0).max(1000), x: z.coerce.number().min(0).max(1000) });

/** The longest a console's frame request waits for a camera. */
const FRAME_WAIT_MS = 5000;

/**
 * The cameras for the operator console: `GET /v1/cameras` lists them,
 * `GET /v1/cameras/:name/frame` is the newest frame (its bytes; when it was
 * taken, its age and whether it is stale in headers), and
 * `GET /v1/cameras/:name/table-point?y=&x=` maps a point of a calibrated
 * camera's image ([y, x], 0–1000, the model's convention) to the table.
 * An unknown camera name is a 404 (ARMB_ERR_CAMERA_UNKNOWN) naming the configured ones.
 */
export function registerCameraRoutes(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "cameras", async (): Promise<CamerasList> => ({
    cameras: bridge.cameras.names().map((name) => {
      const c = bridge.cameras.get(name)!;
      return { name, source: c.source.kind, stale_after_ms: c.staleAfterMs, calibrated: c.table !== undefined };
    }),
  }));

  serveRoute(app, "cameraFrame", async (request, reply) => {
    const { name } = parseInput(cameraParams, request.params, "params");
    const frame = await bridge.cameras.capture(name, AbortSignal.timeout(FRAME_WAIT_MS));
    const headers: FrameHeadersView = {
      "content-type": MIME_TYPES[frame.format],
      "cache-control": "no-store",
      [FRAME_HEADERS.capturedAt]: String(Math.round(frame.capturedAtMs)),
      [FRAME_HEADERS.ageMs]: String(Math.max(0, Math.round(frame.ageMs))),
      [FRAME_HEADERS.stale]: frame.stale ? "true" : "false",
    };
    return reply.headers(headers).send(frame.bytes);
  });

  serveRoute(app, "cameraTablePoint", async (request): Promise<TablePointView> => {
    const { name } = parseInput(cameraParams, request.params, "params");
    const { y, x } = parseInput(pointQuery, request.query, "query");
    const camera = bridge.cameras.get(name);
    if (!camera) throw bridge.cameras.unknown(name);
    if (!camera.table) throw new ArmbridgeError("ARMB_ERR_CAMERA_NOT_CALIBRATED", { camera: name });
    const mapped = imagePointToTable(camera.table, [y, x]);
    if (!mapped.ok)
      throw new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", {
        issues: `query: image point [${y}, ${x}] of camera ${name} cannot be mapped to the table: ${mapped.reason}`,
      });
    return {
      camera: name,
      point: [y, x],
      table: [mapped.table[0], mapped.table[1], mapped.table[2]],
      extrapolated: mapped.extrapolated,
    };
  });
}
