import { withoutData } from "../cameras/CameraImage.js";
import type { CallResult } from "../bridge/BridgePort.js";

export interface InlineImagePart {
  readonly inlineData: { readonly mimeType: string; readonly data: string };
}

/**
 * Takes the image bytes out of a result: the result keeps each image's
 * description (camera, size, capture time, stale) and the bytes become
 * inline-data parts, in the same order. Images already without bytes stay
 * as they are.
 */
export function splitImages(
  result: CallResult,
  deliveredAs = "image content beside this result",
): { result: CallResult; parts: InlineImagePart[] } {
  const images = result.images;
  if (!images || images.length === 0) return { result, parts: [] };
  const parts: InlineImagePart[] = [];
  const described = images.map((image) => {
    const data = image.data;
    if (data === undefined) return image;
    parts.push({ inlineData: { mimeType: image.mime_type, data } });
    return { ...withoutData({ ...image, data }), delivered_as: deliveredAs };
  });
  return { result: { ...result, images: described }, parts };
}
