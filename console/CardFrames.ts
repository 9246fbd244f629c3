import { ApiError } from "../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { describeError } from "./api.js";
import { el, setText } from "./dom.js";
import { clockTime } from "./format.js";
import type { CardFrameView, CardFramesList } from "./wire.js";

/** Whose pictures: an action (unknown card: before and after) or an approval request (before, and the camera now). */
export type FramesSubject =
  { readonly kind: "action"; readonly id: string } | { readonly kind: "approval"; readonly id: string };

/** The after frame is taken once the motion settled: asked again this often, this many times. */
const RETRY_MS = 1000;
const RETRIES = 15;
/** The approval card's live frame refreshes this often while the card is on the page. */
const NOW_MS = 2000;

/** A frame's bytes, asked for within `signal`. */
type Frame = (signal: AbortSignal) => Promise<{ blob: Blob }>;

/** The figures of one card's pictures, one per key (`before:overhead`), each image kept until its next one has loaded. */
class FrameFigures {
  readonly #box: HTMLElement;
  readonly #shown = new Map<string, HTMLElement>();
  readonly #urls = new Map<string, string>();

  constructor(box: HTMLElement) {
    this.#box = box;
  }

  has(key: string): boolean {
    return this.#shown.has(key);
  }

  /** Shows `frame` under `key` (a new figure the first time), captioned once its image has loaded. */
  async show(key: string, camera: string, frame: Frame, caption: string): Promise<void> {
    const fig = this.#figure(key, camera, caption);
    const img = fig.querySelector("img")!;
    const { blob } = await frame(AbortSignal.timeout(8000));
    const url = URL.createObjectURL(blob);
    await new Promise<void>((resolve) => {
      img.addEventListener("load", () => resolve(), { once: true });
      img.addEventListener("error", () => resolve(), { once: true });
      img.src = url;
    });
    const old = this.#urls.get(key);
    if (old) URL.revokeObjectURL(old);
    this.#urls.set(key, url);
    setText(fig.querySelector("figcaption")!, `${camera}: ${caption}`);
  }

  #figure(key: string, camera: string, caption: string): HTMLElement {
    const known = this.#shown.get(key);
    if (known) return known;
    const which = key.split(":")[0] ?? key;
    const fig = el("figure", { cls: "card-frame", attrs: { "data-frame": which } }, [
      el("img", { attrs: { alt: `${camera}, ${caption}`, "data-card-frame": camera, "data-frame": which } }),
      el("figcaption"),
    ]);
    this.#shown.set(key, fig);
    this.#box.appendChild(fig);
    return fig;
  }
}

/**
 * The camera pictures on an operator's card, mounted by one call: what the
 * cameras showed as the call was queued (before anything was sent) and once
 * it settled (unknown cards), or before and now (approval cards: nothing
 * has moved yet). Placed at the card's end, below its buttons; stops asking
 * once the card leaves the page.
 */
export function mountCardFrames(card: HTMLElement, api: ArmbridgeClient, subject: FramesSubject): void {
  const box = el("div", { cls: "card-frames", attrs: { "data-frames-for": subject.kind } });
  const status = el("p", { cls: "frames-status", text: "Camera frames: loading…" });
  box.appendChild(status);
  // At the card's end: the answer buttons stay where the operator expects them (above the fold), the pictures right below.
  card.appendChild(box);
  const figures = new FrameFigures(box);
  let seen = false;
  const alive = (): boolean => {
    if (card.isConnected) seen = true;
    return !seen || card.isConnected;
  };
  const savedFrame =
    (f: CardFrameView): Frame =>
    (signal) =>
      api.bytes(
        subject.kind === "action" ? "actionFrame" : "approvalFrame",
        { params: { id: subject.id, which: f.which }, query: { camera: f.camera } },
        { signal },
      );

  const load = async (attempt: number): Promise<void> => {
    if (!alive()) return;
    const list = await listFrames(api, subject, attempt, status, load);
    if (!list) return;
    for (const f of list.frames)
      if (!figures.has(`${f.which}:${f.camera}`))
        await figures
          .show(`${f.which}:${f.camera}`, f.camera, savedFrame(f), captionOf(f, list.sent_at))
          .catch((e: unknown) => setText(status, describeError(e)));
    const { text, afterMissing } = framesStatus(subject, list);
    setText(status, text);
    if (afterMissing && attempt < RETRIES) setTimeout(() => void load(attempt + 1), RETRY_MS);
    if (subject.kind === "approval") for (const camera of camerasOf(list)) void refreshNow(camera);
  };

  const refreshNow = async (camera: string): Promise<void> => {
    if (!alive()) return;
    await figures
      .show(
        `now:${camera}`,
        camera,
        (signal) => api.bytes("cameraFrame", { params: { name: camera } }, { signal }),
        `now (${clockTime(Date.now())})`,
      )
      .catch(() => undefined);
    setTimeout(() => void refreshNow(camera), NOW_MS);
  };

  setTimeout(() => void load(0), 0);
}

/** The subject's kept frames; not kept yet (the capture is under way): `retry` in a while; else the status says why none. */
async function listFrames(
  api: ArmbridgeClient,
  subject: FramesSubject,
  attempt: number,
  status: HTMLElement,
  retry: (attempt: number) => Promise<void>,
): Promise<CardFramesList | undefined> {
  try {
    return await api.call(subject.kind === "action" ? "actionFrames" : "approvalFrames", {
      params: { id: subject.id },
    });
  } catch (error) {
    // Not kept yet (the capture is under way) or not at all (a restart, no camera): say which.
    if (attempt < RETRIES && error instanceof ApiError && error.status === 404)
      setTimeout(() => void retry(attempt + 1), RETRY_MS);
    else
      setText(
        status,
        `No camera frames for this ${subject.kind === "action" ? "action" : "request"}: ${describeError(error)}`,
      );
    return undefined;
  }
}

function camerasOf(list: CardFramesList): string[] {
  return [...new Set(list.frames.map((f) => f.camera))];
}

/** What the status line says of the frames listed, and whether an action's after frame is still being taken. */
function framesStatus(subject: FramesSubject, list: CardFramesList): { text: string; afterMissing: boolean } {
  const missing = Object.entries(list.missing).map(([k, why]) => `${k}: ${why}`);
  const missingText = missing.length > 0 ? ` Missing: ${missing.join("; ")}` : "";
  if (subject.kind === "approval")
    return {
      text: `Camera frames: as the call arrived, and now. Nothing has moved for this request yet.${missingText}`,
      afterMissing: false,
    };
  const afterMissing = camerasOf(list).some((c) => !list.frames.some((f) => f.which === "after" && f.camera === c));
  const text = afterMissing
    ? "Camera frames: the one after it settled is being taken…"
    : "Camera frames: before the call, and after it settled. Compare them with the arm itself.";
  return { text: text + missingText, afterMissing };
}

function captionOf(f: CardFrameView, sentAt: number | null): string {
  const when = f.clock === "wall" ? clockTime(f.captured_at) : `ROS time ${(f.captured_at / 1000).toFixed(1)} s`;
  if (f.which === "after") return `after it settled, taken ${when}${f.stale ? " (STALE)" : ""}`;
  let relation = "";
  if (sentAt !== null && f.clock === "wall") {
    const lead = sentAt - f.captured_at;
    relation =
      lead >= 0
        ? `, ${Math.round(lead)} ms before it was sent`
        : `, ${Math.round(-lead)} ms AFTER it was sent: it may show the motion's start`;
  }
  return `before the call, taken ${when}${relation}${f.stale ? " (STALE)" : ""}`;
}
