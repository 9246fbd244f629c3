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
  const shown = new Map<string, HTMLElement>();
  const urls = new Map<string, string>();
  let seen = false;
  const alive = (): boolean => {
    if (card.isConnected) seen = true;
    return !seen || card.isConnected;
  };

  /** A frame's bytes, asked for within `signal`. */
  type Frame = (signal: AbortSignal) => Promise<{ blob: Blob }>;
  const show = async (key: string, camera: string, frame: Frame, caption: string): Promise<void> => {
    let fig = shown.get(key);
    if (!fig) {
      fig = el("figure", { cls: "card-frame", attrs: { "data-frame": key.split(":")[0] ?? key } }, [
        el("img", {
          attrs: { alt: `${camera}, ${caption}`, "data-card-frame": camera, "data-frame": key.split(":")[0] ?? key },
        }),
        el("figcaption"),
      ]);
      shown.set(key, fig);
      box.appendChild(fig);
    }
    const img = fig.querySelector("img")!;
    const { blob } = await frame(AbortSignal.timeout(8000));
    const url = URL.createObjectURL(blob);
    await new Promise<void>((resolve) => {
      img.addEventListener("load", () => resolve(), { once: true });
      img.addEventListener("error", () => resolve(), { once: true });
      img.src = url;
    });
    const old = urls.get(key);
    if (old) URL.revokeObjectURL(old);
    urls.set(key, url);
    setText(fig.querySelector("figcaption")!, `${camera}: ${caption}`);
  };

  const params = { id: subject.id };
  const savedFrame =
    (f: CardFrameView): Frame =>
    (signal) =>
      api.bytes(
        subject.kind === "action" ? "actionFrame" : "approvalFrame",
        { params: { ...params, which: f.which }, query: { camera: f.camera } },
        { signal },
      );
  const load = async (attempt: number): Promise<void> => {
    if (!alive()) return;
    let list: CardFramesList;
    try {
      list = await api.call(subject.kind === "action" ? "actionFrames" : "approvalFrames", { params });
    } catch (error) {
      // Not kept yet (the capture is under way) or not at all (a restart, no camera): say which.
      if (attempt < RETRIES && error instanceof ApiError && error.status === 404)
        return void setTimeout(() => void load(attempt + 1), RETRY_MS);
      setText(
        status,
        `No camera frames for this ${subject.kind === "action" ? "action" : "request"}: ${describeError(error)}`,
      );
      return;
    }
    for (const f of list.frames)
      if (!shown.has(`${f.which}:${f.camera}`))
        await show(`${f.which}:${f.camera}`, f.camera, savedFrame(f), captionOf(f, list.sent_at)).catch((e: unknown) =>
          setText(status, describeError(e)),
        );
    const cameras = [...new Set(list.frames.map((f) => f.camera))];
    const missing = Object.entries(list.missing).map(([k, why]) => `${k}: ${why}`);
    if (subject.kind === "action") {
      const afterMissing = cameras.some((c) => !list.frames.some((f) => f.which === "after" && f.camera === c));
      setText(
        status,
        afterMissing
          ? "Camera frames: the one after it settled is being taken…"
          : "Camera frames: before the call, and after it settled. Compare them with the arm itself.",
      );
      if (afterMissing && attempt < RETRIES) setTimeout(() => void load(attempt + 1), RETRY_MS);
    } else {
      setText(status, "Camera frames: as the call arrived, and now. Nothing has moved for this request yet.");
      for (const camera of cameras) void refreshNow(camera);
    }
    if (missing.length > 0) setText(status, `${status.textContent ?? ""} Missing: ${missing.join("; ")}`);
  };

  const refreshNow = async (camera: string): Promise<void> => {
    if (!alive()) return;
    await show(
      `now:${camera}`,
      camera,
      (signal) => api.bytes("cameraFrame", { params: { name: camera } }, { signal }),
      `now (${clockTime(Date.now())})`,
    ).catch(() => undefined);
    setTimeout(() => void refreshNow(camera), NOW_MS);
  };

  setTimeout(() => void load(0), 0);
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
