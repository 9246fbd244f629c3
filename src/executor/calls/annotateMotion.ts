import { withoutData, type CameraImage, type ResultImage } from "../../cameras/CameraImage.js";
import { base64Bytes, type ImageBudget } from "../../cameras/ImageBudget.js";
import { asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import type { CallResult } from "./CallResult.js";
import type { MotionTool, ReadContext } from "../toolContract/ToolDefinition.js";

/** How long a motion's result may wait for its attached pictures. */
const ATTACH_IMAGES_MS = 3000;

export interface AnnotationDeps {
  readonly ctx: ReadContext;
  readonly log: Logger;
  readonly shutdown: AbortSignal;
  readonly imagesAfterMotion: ((signal: AbortSignal) => Promise<readonly CameraImage[]>) | undefined;
}

/**
 * What a motion's result carries besides the ledger's verdict: the tool's
 * `context` (derived from the arguments), and, for a motion that was sent
 * now (not a replay), fresh pictures taken after it settled.
 */
export async function annotateMotion(
  tool: MotionTool,
  args: unknown,
  result: CallResult,
  budget: ImageBudget,
  d: AnnotationDeps,
): Promise<CallResult> {
  let context: Readonly<Record<string, unknown>> | undefined;
  try {
    context = tool.context?.(args, d.ctx);
  } catch (error) {
    d.log.warn(
      { tool: tool.name, err: asArmbridgeError(error).toJSON() },
      "tool context failed; result left without it",
    );
  }
  let images: readonly ResultImage[] = [];
  const sent =
    "action_id" in result && result.action_id !== undefined && result.replayed !== true && result.status !== "rejected";
  if (sent && d.imagesAfterMotion) {
    try {
      images = withinBudget(
        await d.imagesAfterMotion(AbortSignal.any([d.shutdown, AbortSignal.timeout(ATTACH_IMAGES_MS)])),
        budget,
      );
    } catch (error) {
      d.log.warn(
        { tool: tool.name, err: asArmbridgeError(error).toJSON() },
        "attaching camera frames failed; result left without them",
      );
    }
  }
  if (!context && images.length === 0) return result;
  return { ...result, ...(context ? { context } : {}), ...(images.length > 0 ? { images } : {}) };
}

/** Frames attached after a motion, counted against the response's budget: one that does not fit keeps its description and says it was not delivered. */
function withinBudget(images: readonly CameraImage[], budget: ImageBudget): ResultImage[] {
  return images.map((image) => {
    const bytes = base64Bytes(image.data);
    if (budget.take(bytes)) return image;
    return {
      ...withoutData(image),
      delivered_as: `not delivered: this response already carries ${budget.usedBytes} of its ${budget.limitBytes} bytes of pictures (ask for it with get_camera_image in a later turn)`,
    };
  });
}
