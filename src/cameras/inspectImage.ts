import type { ImageFormat } from "../imaging/encodeImage.js";

export type ImageInspection =
  | { readonly ok: true; readonly format: ImageFormat; readonly width: number; readonly height: number }
  | { readonly ok: false; readonly reason: string };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Is this a whole JPEG or PNG, and how big? A file caught mid-write, or an
 * HTTP body cut short, is refused here rather than handed to the model as a
 * picture with its bottom missing.
 *
 * JPEG (ITU-T T.81 Annex B): SOI (FF D8) first, a start-of-frame segment
 * giving the size, and EOI (FF D9) last — trailing zero bytes, which some
 * encoders pad with, are allowed. PNG (ISO/IEC 15948 §5): the signature, IHDR
 * first, every chunk's length inside the buffer, and IEND.
 */
export function inspectImage(bytes: Uint8Array): ImageInspection {
  if (bytes.length >= 8 && PNG_SIGNATURE.equals(Buffer.from(bytes.buffer, bytes.byteOffset, 8)))
    return inspectPng(bytes);
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8) return inspectJpeg(bytes);
  return { ok: false, reason: bytes.length === 0 ? "it is empty" : "it is neither a JPEG nor a PNG" };
}

function inspectPng(b: Uint8Array): ImageInspection {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let first = true;
  while (at + 12 <= b.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(b[at + 4] ?? 0, b[at + 5] ?? 0, b[at + 6] ?? 0, b[at + 7] ?? 0);
    if (at + 12 + length > b.length)
      return { ok: false, reason: `PNG chunk ${type} runs past the end (${b.length} bytes): the image is incomplete` };
    if (first) {
      if (type !== "IHDR" || length < 8) return { ok: false, reason: "PNG without IHDR first" };
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      first = false;
    }
    if (type === "IEND")
      return width > 0 && height > 0
        ? { ok: true, format: "png", width, height }
        : { ok: false, reason: "PNG of zero size" };
    at += 12 + length;
  }
  return { ok: false, reason: "PNG without IEND: the image is incomplete (caught mid-write or cut short)" };
}

function inspectJpeg(b: Uint8Array): ImageInspection {
  let end = b.length;
  while (end > 2 && b[end - 1] === 0x00) end--;
  if (!(b[end - 2] === 0xff && b[end - 1] === 0xd9))
    return {
      ok: false,
      reason: "JPEG without its end marker (FF D9): the image is incomplete (caught mid-write or cut short)",
    };
  let at = 2;
  while (at + 4 <= end) {
    if (b[at] !== 0xff) return { ok: false, reason: `JPEG segment expected at byte ${at}` };
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (at + 9 > end) break;
      const height = ((b[at + 5] ?? 0) << 8) | (b[at + 6] ?? 0);
      const width = ((b[at + 7] ?? 0) << 8) | (b[at + 8] ?? 0);
      return width > 0 && height > 0
        ? { ok: true, format: "jpeg", width, height }
        : { ok: false, reason: "JPEG of zero size" };
    }
    if (marker === 0xda) break;
    at += 2 + length;
  }
  return { ok: false, reason: "JPEG without a start-of-frame segment before its scan" };
}
