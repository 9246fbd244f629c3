import { describeError } from "./api.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { $, el, setText } from "./dom.js";
import type { CameraView } from "./wire.js";

/** How often each camera's newest frame is fetched while the page is visible. */
const REFRESH_MS = 1000;

interface Shown {
  readonly view: CameraView;
  readonly root: HTMLElement;
  readonly img: HTMLImageElement;
  readonly caption: HTMLElement;
  readonly where: HTMLElement;
  url: string | undefined;
  /** When the frame on screen was taken, on this page's clock. */
  takenAt: number | undefined;
  stale: boolean;
  error: string | undefined;
  busy: boolean;
}

/**
 * Each configured camera's newest frame, refreshing, with its age: what an
 * operator asked "did this move happen?" looks at. Clicking a calibrated
 * camera's image says where on the table that point is.
 */
export class CameraPanel {
  readonly #api: ArmbridgeClient;
  readonly #shown: Shown[] = [];
  #loading: Promise<void> | undefined;

  constructor(api: ArmbridgeClient) {
    this.#api = api;
  }

  /** Lists the cameras once (again after a failure) and starts refreshing them. */
  load(): Promise<void> {
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  async #load(): Promise<void> {
    const list = await this.#api.call("cameras");
    const box = $("cameras");
    for (const view of list.cameras) {
      const img = el("img", { attrs: { alt: `camera ${view.name}`, "data-camera": view.name } });
      const caption = el("span");
      const where = el("span", { cls: "where" });
      const root = el(
        "figure",
        { cls: `camera${view.calibrated ? " calibrated" : ""}`, attrs: { "data-camera": view.name } },
        [img, el("figcaption", {}, [caption, document.createTextNode(" "), where])],
      );
      const shown: Shown = {
        view,
        root,
        img,
        caption,
        where,
        url: undefined,
        takenAt: undefined,
        stale: false,
        error: undefined,
        busy: false,
      };
      if (view.calibrated) img.addEventListener("click", (e) => void this.#pointAt(shown, e));
      this.#shown.push(shown);
      box.appendChild(root);
    }
    setInterval(() => this.#tick(), REFRESH_MS);
    this.#tick();
  }

  #tick(): void {
    if (document.visibilityState !== "visible") return;
    for (const s of this.#shown) {
      if (!s.busy) void this.#fetch(s);
      this.#caption(s);
    }
  }

  async #fetch(s: Shown): Promise<void> {
    s.busy = true;
    try {
      const { blob, headers } = await this.#api.bytes(
        "cameraFrame",
        { params: { name: s.view.name } },
        { signal: AbortSignal.timeout(8000) },
      );
      const url = URL.createObjectURL(blob);
      await new Promise<void>((resolve) => {
        s.img.addEventListener("load", () => resolve(), { once: true });
        s.img.addEventListener("error", () => resolve(), { once: true });
        s.img.src = url;
      });
      if (s.url) URL.revokeObjectURL(s.url);
      s.url = url;
      s.takenAt = Date.now() - Number(headers.get("x-frame-age-ms") ?? 0);
      s.stale = headers.get("x-frame-stale") === "true";
      s.error = undefined;
    } catch (error) {
      s.error = describeError(error);
    } finally {
      s.busy = false;
      this.#caption(s);
    }
  }

  #caption(s: Shown): void {
    const age =
      s.takenAt === undefined ? "no frame yet" : `taken ${((Date.now() - s.takenAt) / 1000).toFixed(1)} s ago`;
    const stale = s.stale || (s.takenAt !== undefined && Date.now() - s.takenAt > s.view.stale_after_ms);
    s.root.classList.toggle("stale", stale);
    setText(
      s.caption,
      `${s.view.name}: ${age}${stale ? " (STALE)" : ""}${s.error ? ` — could not refresh: ${s.error}` : ""}${s.view.calibrated ? " — click a point for its table coordinates" : ""}`,
    );
  }

  async #pointAt(s: Shown, e: MouseEvent): Promise<void> {
    const r = s.img.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return;
    const y = Math.round(((e.clientY - r.top) / r.height) * 1000);
    const x = Math.round(((e.clientX - r.left) / r.width) * 1000);
    try {
      const p = await this.#api.call("cameraTablePoint", {
        params: { name: s.view.name },
        query: { y: String(y), x: String(x) },
      });
      const [tx = Number.NaN, ty = Number.NaN, tz = Number.NaN] = p.table;
      setText(
        s.where,
        `[${y}, ${x}] → table x=${tx.toFixed(3)} m, y=${ty.toFixed(3)} m, z=${tz.toFixed(3)} m${p.extrapolated ? " (outside the calibration points: less accurate)" : ""}`,
      );
    } catch (error) {
      setText(s.where, `[${y}, ${x}]: ${describeError(error)}`);
    }
  }
}
