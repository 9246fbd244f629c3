/**
 * Whole JPEG images out of a byte stream of JPEGs back to back (ffmpeg's
 * `-f mjpeg` output), in any chunking. A frame ends at its EOI marker, found
 * by walking the marker segments (ITU-T T.81 Annex B): each segment's
 * length is skipped, so FF D9 bytes inside an APP segment (an EXIF
 * thumbnail) do not end a frame early; after SOS the entropy-coded data is
 * scanned, where a 0xFF byte is always followed by 00 (stuffing) or an RSTn
 * marker (D0–D7) unless a real marker follows. Bytes before an SOI are
 * skipped; a frame that grows past `maxBytes` is dropped and the hunt for
 * the next SOI starts over.
 */
export class JpegStreamSplitter {
  readonly #maxBytes: number;
  #buffer = Buffer.alloc(0);
  /** Where parsing of the frame at the buffer's front has got to (it starts at an SOI). */
  #at = 0;
  #inScan = false;
  /** Bytes thrown away: noise before an SOI, oversize frames. */
  discardedBytes = 0;

  constructor(options: { readonly maxBytes: number }) {
    this.#maxBytes = options.maxBytes;
  }

  push(chunk: Uint8Array): Buffer[] {
    this.#buffer = this.#buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#buffer, chunk]);
    const frames: Buffer[] = [];
    for (;;) {
      if (this.#at === 0 && !this.#huntSoi()) break;
      const end = this.#findEnd();
      if (end === "damaged") continue;
      if (end === "incomplete") {
        if (this.#buffer.length > this.#maxBytes) {
          this.#dropFrame();
          continue;
        }
        break;
      }
      frames.push(Buffer.from(this.#buffer.subarray(0, end)));
      this.#buffer = this.#buffer.subarray(end);
      this.#at = 0;
      this.#inScan = false;
    }
    return frames;
  }

  /** Moves the buffer's front to the next SOI (FF D8); false when there is none yet. */
  #huntSoi(): boolean {
    const b = this.#buffer;
    for (let i = 0; i + 1 < b.length; i++) {
      if (b[i] === 0xff && b[i + 1] === 0xd8) {
        this.discardedBytes += i;
        this.#buffer = b.subarray(i);
        this.#at = 2;
        this.#inScan = false;
        return true;
      }
    }
    // Keep a trailing 0xFF: it may be the first half of the next SOI.
    const keep = b.length > 0 && b[b.length - 1] === 0xff ? 1 : 0;
    this.discardedBytes += b.length - keep;
    this.#buffer = b.subarray(b.length - keep);
    return false;
  }

  /** The byte after the frame's EOI; or the frame is still incomplete, or damaged (dropped). */
  #findEnd(): number | "incomplete" | "damaged" {
    const b = this.#buffer;
    let at = this.#at;
    for (;;) {
      if (this.#inScan) {
        // Entropy-coded data: hunt the next marker.
        while (
          at + 1 < b.length &&
          !(b[at] === 0xff && b[at + 1] !== 0x00 && !((b[at + 1] ?? 0) >= 0xd0 && (b[at + 1] ?? 0) <= 0xd7))
        )
          at++;
        if (at + 1 >= b.length) break;
        this.#inScan = false;
      }
      if (at + 1 >= b.length) break;
      if (b[at] !== 0xff) {
        // Not at a marker where one must be: the frame is damaged. Hunt the next SOI after this one.
        this.#dropFrame();
        return "damaged";
      }
      const marker = b[at + 1] ?? 0;
      if (marker === 0xff) {
        at++; // fill byte
        continue;
      }
      if (marker === 0xd9) return at + 2;
      if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        at += 2;
        continue;
      }
      if (at + 3 >= b.length) break;
      const length = ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0);
      if (at + 2 + length > b.length) break;
      at += 2 + length;
      if (marker === 0xda) this.#inScan = true;
    }
    this.#at = at;
    return "incomplete";
  }

  #dropFrame(): void {
    // Skip past this frame's SOI so the hunt finds the next one.
    this.discardedBytes += 2;
    this.#buffer = this.#buffer.subarray(2);
    this.#at = 0;
    this.#inScan = false;
  }
}
