import { z } from "zod";
import type { LabelledFrame } from "../cameras/CameraFrame.js";
import type { Cameras } from "../cameras/Cameras.js";
import type { ImageBudget } from "../cameras/ImageBudget.js";
import { ArmbridgeError, isArmbridgeError } from "../errors.js";
import { describeImage, toCameraImage, withoutData } from "../cameras/CameraImage.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { defineReadTool, type HaltTool, type ReadTool } from "../executor/toolContract/ToolDefinition.js";
import { namesOf } from "../validation/nameChoices.js";

/** `get_camera_image {camera}`: one fresh picture from a configured camera, to look at. Read-only. */
export function getCameraImageTool(config: ArmConfig, cameras: Cameras): ReadTool | HaltTool {
  const names = cameras.names() as [string, ...string[]];
  const calibrated = config.cameras.filter((c) => c.table).map((c) => c.name);
  return defineReadTool({
    name: "get_camera_image",
    description:
      `Take a picture with one of the cameras (${names.join(", ")}) and look at it. The result carries the image and when it was captured; ` +
      "a picture older than the camera's limit is labelled STALE (the scene may have changed since). " +
      (calibrated.length > 0
        ? `Camera(s) ${calibrated.join(", ")} are calibrated to the table: point at something in their picture as [y, x], each normalised to 0-1000, and pass it to move_to_image_point. `
        : "") +
      "Read-only: nothing moves.",
    args: z
      .object({
        camera: namesOf(z.enum(names).describe(`The camera: one of ${names.join(", ")}.`), {
          what: "camera",
          among: "the configured cameras",
        }),
      })
      .strict(),
    blocking: false,
    kind: "read",
    timeoutMs: config.timeoutsMs.getCameraImage,
    run: async (args, ctx, signal) => {
      const frame = await captureWithin(ctx.imageBudget, args.camera, signal, cameras);
      const image = toCameraImage(frame);
      const meta = withoutData(image);
      const calibration = cameras.get(args.camera)?.table;
      return {
        message: `Picture from ${describeImage(meta)}.${frame.notes.length > 0 ? ` Note: ${frame.notes.join("; ")}.` : ""}`,
        data: {
          image: meta,
          calibrated: calibration !== undefined,
          ...(calibration ? { table: { z: calibration.z, residual_mm: roundMm(calibration.residualMm) } } : {}),
        },
        images: [image],
      };
    },
  });
}

/**
 * One frame, counted against the response's picture budget before it is
 * encoded: a frame that does not fit is refused (ARMB_ERR_IMAGE_BUDGET) and
 * dropped, never held as base64 beside the others.
 */
async function captureWithin(
  budget: ImageBudget | undefined,
  camera: string,
  signal: AbortSignal,
  cameras: Cameras,
): Promise<LabelledFrame> {
  if (!budget) return cameras.capture(camera, signal);
  let frame: LabelledFrame;
  try {
    frame = await budget.capture(signal, () => cameras.capture(camera, signal));
  } catch (error) {
    if (isArmbridgeError(error) || !signal.aborted) throw error;
    throw new ArmbridgeError(
      "ARMB_ERR_CAMERA_UNAVAILABLE",
      {
        camera,
        source: "queue",
        reason: "the call's time ran out while this response's other pictures were being taken",
      },
      { cause: error },
    );
  }
  if (!budget.take(frame.bytes.length))
    throw new ArmbridgeError("ARMB_ERR_IMAGE_BUDGET", {
      camera,
      bytes: frame.bytes.length,
      used: budget.usedBytes,
      limit: budget.limitBytes,
    });
  return frame;
}

function roundMm(r: { rms: number; max: number }): { rms: number; max: number } {
  return { rms: Math.round(r.rms * 100) / 100, max: Math.round(r.max * 100) / 100 };
}
