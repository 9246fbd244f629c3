import type { ArmConfig } from "../config/ArmConfig.js";
import type { Logger } from "../observability/logger.js";
import type { Cameras } from "./Cameras.js";
import { toCameraImage, type CameraImage } from "./CameraImage.js";

/**
 * The executor's hook for `attach_to_results`: after a motion settled, one
 * fresh frame from each such camera, in config order. A camera that fails is
 * logged and left out — a picture is a courtesy to the model; the motion's
 * result is the ledger's and must not wait on, or fail with, a camera.
 * Undefined when no camera asks for it.
 */
/** A frame this much older than the settled result is said to predate it. */
const BEFORE_SETTLE_TOLERANCE_MS = 250;

export function imagesAfterMotion(
  config: ArmConfig,
  cameras: Cameras,
  logger: Logger,
): ((signal: AbortSignal) => Promise<readonly CameraImage[]>) | undefined {
  const names = config.cameras.filter((c) => c.attachToResults).map((c) => c.name);
  if (names.length === 0) return undefined;
  return async (signal) => {
    // The hook runs once the result is settled: a frame from well before this moment may not show the motion's end.
    // (The simulated camera draws the status that settled it, a few ms earlier: that one does.)
    const settledAtMs = Date.now() - BEFORE_SETTLE_TOLERANCE_MS;
    const frames = await Promise.all(
      names.map((name) =>
        cameras.capture(name, signal).then(
          (f) =>
            toCameraImage(
              f.clock === "wall" && f.capturedAtMs < settledAtMs
                ? {
                    ...f,
                    notes: [
                      ...f.notes,
                      `captured over ${Math.round(settledAtMs + BEFORE_SETTLE_TOLERANCE_MS - f.capturedAtMs)} ms before the motion settled (the camera had nothing newer): it may not show where the arm stopped`,
                    ],
                  }
                : f,
            ),
          (error: unknown) => {
            logger.warn({ camera: name, err: (error as Error).message }, "no frame to attach to the motion's result");
            return undefined;
          },
        ),
      ),
    );
    return frames.filter((f): f is CameraImage => f !== undefined);
  };
}
