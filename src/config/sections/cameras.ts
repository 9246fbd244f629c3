import { z } from "zod";
import { fitHomography, type Homography } from "../../geometry/fitHomography.js";
import { cameraUrl } from "../cameraUrl.js";
import { DEFAULT_SIM, simCameraFile, type SimCameraConfig } from "./simulator.js";

/**
 * The `cameras:` section (docs/cameras.md). Snake case in the file,
 * camelCase after the transform; the simulated camera's own keys
 * (`cameras[].sim`) and what it sees (`scene:`) are in ./simulator.ts.
 */

const cameraName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a camera name is a letter then up to 63 letters, digits or underscores")
  .refine((n) => !(n in Object.prototype), { message: "this name is a built-in property of every JavaScript object; choose another" });

const finite = z.number().finite();
/** Gemini's image points: [y, x], each normalised to 0–1000 over the image's height and width. */
const imagePoint = z.tuple([finite.min(0).max(1000), finite.min(0).max(1000)]);
const tablePoint = z.tuple([finite, finite]);

const httpSource = z
  .object({
    http: z.url({ protocol: /^https?$/ }).describe("A snapshot URL that answers one JPEG (or PNG) per GET, as mjpg-streamer's `?action=snapshot` and IP cameras do."),
    timeout_ms: finite.positive().max(60_000).default(2000),
  })
  .strict();
const fileSource = z
  .object({
    file: z.string().min(1).describe("A JPEG or PNG file that another program rewrites; its modification time is the capture time."),
  })
  .strict();
const v4l2Source = z
  .object({
    device: z.string().regex(/^\//, "an absolute device path, e.g. /dev/video0").describe("A V4L2 capture device (a USB webcam): /dev/video0, or a stable /dev/v4l/by-id/… path."),
    width: z.number().int().min(16).max(8192).describe("The frame size and rate asked of the camera (it must offer them; `v4l2-ctl --list-formats-ext` lists what it does)."),
    height: z.number().int().min(16).max(8192),
    fps: z.number().positive().max(240),
  })
  .strict();
const rosSource = z
  .object({
    ros_topic: z.string().regex(/^\/?[A-Za-z~][A-Za-z0-9_/~]*$/, "a ROS topic name").describe("A sensor_msgs/msg/CompressedImage topic (needs the ros2 transport: the camera shares its node and clock)."),
  })
  .strict();


const tableCalibrationFile = z
  .object({
    z: finite.describe("The table surface's height in the arm's base frame (m): every mapped point lies on it."),
    points: z.array(z.object({ image: imagePoint, table: tablePoint }).strict()).min(4, "a table calibration needs at least 4 points").max(200).describe("At least 4 correspondences, no three on one line: where a table point (base frame x, y in metres) appears in the image ([y, x], 0–1000)."),
  })
  .strict();

const cameraFile = z
  .object({
    name: cameraName,
    source: z.union([z.literal("sim"), httpSource, fileSource, rosSource, v4l2Source]).describe("`sim`, `{http: URL}`, `{file: PATH}`, `{ros_topic: TOPIC}` or `{device: /dev/videoN, width, height, fps}`."),
    table: tableCalibrationFile.optional(),
    stale_after_ms: finite.positive().max(3_600_000).default(2000).describe("A frame older than this is labelled stale, and move_to_image_point refuses to act on the camera."),
    attach_to_results: z.boolean().default(false).describe("Attach a fresh frame from this camera to every motion's result, taken after the motion settled."),
    sim: simCameraFile.optional(),
  })
  .strict();



export const camerasFileSchema = z
  .array(cameraFile)
  .max(16)
  .default([])
  .describe("Cameras (docs/cameras.md): `[{name, source, table?, stale_after_ms?, attach_to_results?, sim?}]`.");

/** Adds an issue per camera problem the schema alone cannot see: duplicate names, a calibration that fixes no homography. */
export function checkCameras(cameras: z.output<typeof camerasFileSchema>, ctx: z.RefinementCtx): void {
  const names = new Set<string>();
  for (const [i, c] of cameras.entries()) {
    if (names.has(c.name)) ctx.addIssue({ code: "custom", path: ["cameras", i, "name"], message: `duplicate camera ${c.name}` });
    names.add(c.name);
    if (c.sim && c.source !== "sim") ctx.addIssue({ code: "custom", path: ["cameras", i, "sim"], message: "sim: applies only to source: sim" });
    if (typeof c.source === "object" && "http" in c.source) {
      const url = cameraUrl(c.source.http);
      if (!url.ok) ctx.addIssue({ code: "custom", path: ["cameras", i, "source", "http"], message: `camera ${c.name}'s URL ${url.reason}` });
    }
    if (c.table) {
      const fit = fitHomography(c.table.points.map((p) => ({ from: [p.image[1], p.image[0]], to: p.table })));
      if (!fit.ok) ctx.addIssue({ code: "custom", path: ["cameras", i, "table", "points"], message: `the calibration ${fit.reason}` });
    }
  }
}


export type CameraSourceConfig =
  | { readonly kind: "sim" }
  | { readonly kind: "http"; readonly url: string; readonly timeoutMs: number }
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "ros"; readonly topic: string }
  | { readonly kind: "v4l2"; readonly device: string; readonly width: number; readonly height: number; readonly fps: number };

export interface TableCalibration {
  readonly z: number;
  readonly points: readonly { readonly image: readonly [number, number]; readonly table: readonly [number, number] }[];
  /** Image (x, y in 0–1000; note: x first) → table (x, y in metres), fitted at load. */
  readonly homography: Homography;
  /** The fit's RMS and largest residual at the calibration points, in millimetres on the table. */
  readonly residualMm: { readonly rms: number; readonly max: number };
}


export interface CameraConfig {
  readonly name: string;
  readonly source: CameraSourceConfig;
  readonly table: TableCalibration | undefined;
  readonly staleAfterMs: number;
  readonly attachToResults: boolean;
  readonly sim: SimCameraConfig;
}




export function toCameraConfigs(cameras: z.output<typeof camerasFileSchema>): CameraConfig[] {
  return cameras.map((c) => {
    const sim = c.sim ?? DEFAULT_SIM;
    return {
      name: c.name,
      source: sourceOf(c.source),
      table: c.table ? calibrationOf(c.table) : undefined,
      staleAfterMs: c.stale_after_ms,
      attachToResults: c.attach_to_results,
      sim: { position: sim.position, yawDeg: sim.yaw_deg, fovDeg: sim.fov_deg, width: sim.width, height: sim.height, format: sim.format, jpegQuality: sim.jpeg_quality },
    };
  });
}


function sourceOf(s: z.output<typeof cameraFile>["source"]): CameraSourceConfig {
  if (s === "sim") return { kind: "sim" };
  if ("http" in s) return { kind: "http", url: s.http, timeoutMs: s.timeout_ms };
  if ("file" in s) return { kind: "file", path: s.file };
  if ("device" in s) return { kind: "v4l2", device: s.device, width: s.width, height: s.height, fps: s.fps };
  return { kind: "ros", topic: s.ros_topic };
}

function calibrationOf(t: z.output<typeof tableCalibrationFile>): TableCalibration {
  const fit = fitHomography(t.points.map((p) => ({ from: [p.image[1], p.image[0]], to: p.table })));
  // checkCameras refused every set that does not fit; this only narrows the type.
  if (!fit.ok) throw new Error(`unreachable: calibration refused after validation (${fit.reason})`);
  return { z: t.z, points: t.points, homography: fit.h, residualMm: { rms: fit.rmsResidual * 1000, max: fit.maxResidual * 1000 } };
}
