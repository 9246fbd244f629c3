import type { RenderJob } from "./RenderJob.js";
import { renderScene, type RawImage } from "./renderScene.js";
import { TopDownCamera } from "./TopDownCamera.js";

/** The raw picture a job asks for: the same drawing on the worker and (where no worker can start) in the caller's thread. */
export function drawJob(job: Omit<RenderJob, "id">): RawImage {
  return renderScene(new TopDownCamera(job.view), job.scene, job.arm);
}
