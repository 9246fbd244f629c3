import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/** One configured camera as the console lists it. */
export const CAMERA_VIEW = z.strictObject({
  name: z.string(),
  /** sim, file, http, ros … (the config's `source`). */
  source: z.string(),
  /** A frame older than this is labelled stale. */
  stale_after_ms: z.number(),
  /** True when the camera has a table calibration: a point of its image maps to table coordinates. */
  calibrated: z.boolean(),
});
export type CameraView = WireOf<typeof CAMERA_VIEW>;

/** GET /v1/cameras. */
export const CAMERAS_LIST = z.strictObject({ cameras: z.array(CAMERA_VIEW) });
export type CamerasList = WireOf<typeof CAMERAS_LIST>;

/** GET /v1/cameras/:name/table-point?y=&x=: where on the table a point of the image ([y, x], 0–1000) lies. */
export const TABLE_POINT_VIEW = z.strictObject({
  camera: z.string(),
  point: z.tuple([z.number(), z.number()]),
  /** Base frame x, y, z in metres (z: the table's height). */
  table: z.tuple([z.number(), z.number(), z.number()]),
  /** Outside the calibration points' hull the homography extrapolates: less accurate. */
  extrapolated: z.boolean(),
});
export type TablePointView = WireOf<typeof TABLE_POINT_VIEW>;

/** The headers a frame (GET /v1/cameras/:name/frame) carries beside its bytes. */
export const FRAME_HEADERS = {
  capturedAt: "x-captured-at",
  ageMs: "x-frame-age-ms",
  stale: "x-frame-stale",
} as const;

const decimal = z.string().check(z.regex(/^\d+$/, "a whole number in decimal"));

/**
 * A frame's own headers, as sent (header values are strings): its image type,
 * never cached, and when it was taken, its age and whether it is stale. The
 * `x-` headers are exactly these: one the server adds or drops without this
 * contract fails test/surfaces/http/wireContract.test.ts.
 */
export const FRAME_HEADERS_VIEW = z.strictObject({
  "content-type": z.enum(["image/jpeg", "image/png"]),
  "cache-control": z.literal("no-store"),
  /** Epoch ms the frame was taken (or, for a source that does not say, received). */
  [FRAME_HEADERS.capturedAt]: decimal,
  /** How old the frame was when sent, in ms. */
  [FRAME_HEADERS.ageMs]: decimal,
  /** "true" when older than the camera's stale_after_ms. */
  [FRAME_HEADERS.stale]: z.enum(["true", "false"]),
});
export type FrameHeadersView = WireOf<typeof FRAME_HEADERS_VIEW>;

/** One kept picture of a call: GET its `url` for the bytes. */
export const CARD_FRAME_VIEW = z.strictObject({
  /** before: as the call was queued, before anything was sent; after: once it settled. */
  which: z.enum(["before", "after"]),
  camera: z.string(),
  format: z.string(),
  width: z.number(),
  height: z.number(),
  /** Epoch ms it was taken (ROS ms for a ROS camera, see `clock`). */
  captured_at: z.number(),
  clock: z.enum(["wall", "ros"]),
  stale: z.boolean(),
  url: z.string(),
});
export type CardFrameView = WireOf<typeof CARD_FRAME_VIEW>;

/** GET /v1/actions/:id/frames and GET /v1/approvals/:id/frames: the pictures kept around one motion call. */
export const CARD_FRAMES_LIST = z.strictObject({
  call_id: z.string(),
  action_id: z.nullable(z.string()),
  approval_id: z.nullable(z.string()),
  /** Epoch ms the motion was sent, once it was: a `before` frame taken later says so. */
  sent_at: z.nullable(z.number()),
  frames: z.array(CARD_FRAME_VIEW),
  /** Cameras that gave no frame (`before:overhead` → why). */
  missing: z.record(z.string(), z.string()),
});
export type CardFramesList = WireOf<typeof CARD_FRAMES_LIST>;
