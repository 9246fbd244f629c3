import { readFileSync } from "node:fs";
import { extname } from "node:path";
import type { Part } from "@google/genai";
import { ArmbridgeError } from "../../errors.js";

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".heic": "image/heic",
  ".heif": "image/heif",
};

/** Inline images are capped well under the API's 20 MB request limit. */
const MAX_IMAGE_BYTES = 15 * 1024 * 1024;

/** Reads image files into `inlineData` parts (base64, MIME type from the extension). */
export function imageParts(paths: readonly string[]): Part[] {
  return paths.map((path) => {
    const mimeType = MIME_BY_EXTENSION[extname(path).toLowerCase()];
    if (!mimeType) {
      throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
        message: `--image ${path}: unsupported type; use one of ${Object.keys(MIME_BY_EXTENSION).join(", ")}`,
      });
    }
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (error) {
      throw new ArmbridgeError(
        "ARMB_ERR_CLI_USAGE",
        { message: `--image ${path}: ${(error as Error).message}` },
        { cause: error },
      );
    }
    if (data.length > MAX_IMAGE_BYTES)
      throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
        message: `--image ${path}: ${data.length} bytes is over the ${MAX_IMAGE_BYTES}-byte limit`,
      });
    return { inlineData: { mimeType, data: data.toString("base64") } };
  });
}
