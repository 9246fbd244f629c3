import { CaptureSlots } from "./CaptureSlots.js";

/**
 * Bytes of pictures (raw JPEG/PNG bytes, before base64) one response may
 * carry: every get_camera_image frame and every frame attached after a motion
 * in one HTTP answer, one MCP result, one agent turn's function responses.
 * 24 MiB lets one frame at the per-frame cap (MAX_FRAME_BYTES, 20 MiB)
 * through, and keeps a response's JSON far below V8's string limit (about
 * 512 MiB, where a batch of large frames used to fail as "Invalid string
 * length") and a request to a model near the size its API takes inline.
 */
export const RESPONSE_IMAGE_BUDGET_BYTES = 24 * 1024 * 1024;

/**
 * Frames captured at once for one response. Captures are held in memory
 * whole until they are checked against the budget, so a batch of 64
 * get_camera_image calls must not hold 64 frames at once; two keep a second
 * camera's latency hidden behind the first.
 */
const CAPTURES_AT_ONCE = 2;

/**
 * The per-response picture budget: frames are counted against it in the
 * order they are ready, and a frame that does not fit is not delivered (its
 * call says so, with ARMB_ERR_IMAGE_BUDGET, or its description says
 * "not delivered"). One per response, created by the executor for each
 * `execute` or handed to several by a surface whose one answer gathers them
 * (a Live tool response).
 */
export class ImageBudget {
  readonly limitBytes: number;
  #used = 0;
  readonly #slots = new CaptureSlots(CAPTURES_AT_ONCE);

  constructor(limitBytes = RESPONSE_IMAGE_BUDGET_BYTES) {
    this.limitBytes = limitBytes;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** Counts `bytes` against the budget; false, with nothing counted, when they do not fit. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    return true;
  }

  /** Runs `grab` once fewer than CAPTURES_AT_ONCE captures of this response are under way. Rejects with `signal`'s reason if it ends first. */
  capture<T>(signal: AbortSignal, grab: () => Promise<T>): Promise<T> {
    return this.#slots.hold(signal, grab);
  }
}

/** The raw size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
