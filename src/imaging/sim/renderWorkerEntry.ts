import { parentPort } from "node:worker_threads";
import { encodeImage } from "../encodeImage.js";
import type { RenderJob, RenderReply } from "./RenderJob.js";
import { drawJob } from "./drawJob.js";

// The render worker's entry: draws and encodes each job it is sent, in order, and answers with the bytes (transferred, not copied).
parentPort?.on("message", (job: RenderJob) => {
  let reply: RenderReply;
  try {
    const image = drawJob(job);
    const encoded = encodeImage(image, job.view.format, job.view.jpegQuality);
    // A copy of its own: a small Buffer may be a slice of a shared pool, which must not be transferred.
    const bytes = new Uint8Array(encoded);
    parentPort?.postMessage(
      { id: job.id, ok: true, bytes, width: image.width, height: image.height } satisfies RenderReply,
      [bytes.buffer],
    );
    return;
  } catch (error) {
    reply = { id: job.id, ok: false, message: (error as Error).message };
  }
  parentPort?.postMessage(reply);
});
