import type { CameraFrame } from "../CameraFrame.js";

/** One camera's way of getting a frame. `grab` throws ArmbridgeError (ARMB_ERR_CAMERA_UNAVAILABLE / _FRAME_INVALID) when it cannot. */
export interface CameraSource {
  grab(signal: AbortSignal): Promise<CameraFrame>;
  close(): void;
}
