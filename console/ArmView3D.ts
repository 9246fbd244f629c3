import { PerspectiveCamera, Vector3 } from "three";
import type { ArmScene } from "./ArmScene.js";
import { el, setText } from "./dom.js";
import { distanceToFrameBox } from "./frameBox.js";
import { drawInto, onRendererChange, sharedRenderer } from "./sharedRenderer.js";

const FOV_DEG = 35;
/** A little room around the framed box. */
const ZOOM = 1.03;
const TURN_PER_PX = 0.008;

/**
 * One 3D picture of an ArmScene on a 2D canvas, drawn only when asked
 * (`invalidate`: the pose, the staleness or the refusal changed, the canvas
 * was resized, the operator turned the view), at most once per animation
 * frame and only while on screen: no render loop. A horizontal drag turns the view about the vertical
 * axis (a vertical one, with a mouse, tilts it); a finger's vertical swipe
 * still scrolls the page. Without WebGL it says why, in words.
 */
export class ArmView3D {
  readonly root: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  readonly arm: ArmScene;
  readonly #caption: HTMLElement;
  readonly #off: HTMLElement;
  readonly #camera = new PerspectiveCamera(FOV_DEG, 1, 0.01, 100);
  readonly #resize: ResizeObserver;
  readonly #onScreen: IntersectionObserver;
  /** Off screen (scrolled away, a card below the fold) nothing is drawn; it draws once it comes into view, if anything changed. */
  #visible = false;
  #pending = false;
  readonly #unlisten: () => void;
  #azimuth = -0.62 * Math.PI;
  #elevation = 0.42;
  #frame: number | undefined;
  #frames = 0;
  #disposed = false;
  #drag: { readonly id: number; x: number; y: number } | undefined;

  constructor(arm: ArmScene, options: { readonly cls: string; readonly label: string }) {
    this.arm = arm;
    this.canvas = el("canvas", {
      cls: "arm3d-canvas",
      attrs: { role: "img", "aria-label": options.label, "data-frames": "0" },
    });
    this.#caption = el("figcaption");
    this.#off = el("p", { cls: "arm3d-off", attrs: { role: "status" } });
    this.#off.hidden = true;
    this.root = el("figure", { cls: `arm3d ${options.cls}` }, [this.canvas, this.#off, this.#caption]);
    this.#camera.up.set(0, 0, 1);
    this.#resize = new ResizeObserver(() => this.invalidate());
    this.#resize.observe(this.canvas);
    this.#onScreen = new IntersectionObserver((entries) => {
      this.#visible = entries.some((e) => e.isIntersecting);
      if (this.#visible && this.#pending) this.invalidate();
    });
    this.#onScreen.observe(this.root);
    this.#unlisten = onRendererChange(() => this.invalidate());
    this.canvas.addEventListener("pointerdown", this.#onDown);
    this.canvas.addEventListener("pointermove", this.#onMove);
    this.canvas.addEventListener("pointerup", this.#onUp);
    this.canvas.addEventListener("pointercancel", this.#onUp);
    this.invalidate();
  }

  setCaption(text: string): void {
    setText(this.#caption, text);
  }

  /** Draws again at the next animation frame (several changes in one frame draw once). */
  invalidate(): void {
    this.#pending = true;
    if (this.#disposed || this.#frame !== undefined || !this.#visible) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      this.#draw();
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame);
    this.#resize.disconnect();
    this.#onScreen.disconnect();
    this.#unlisten();
    this.canvas.removeEventListener("pointerdown", this.#onDown);
    this.canvas.removeEventListener("pointermove", this.#onMove);
    this.canvas.removeEventListener("pointerup", this.#onUp);
    this.canvas.removeEventListener("pointercancel", this.#onUp);
    this.arm.dispose();
    // A canvas of no size holds no pixels while the element waits to be collected.
    this.canvas.width = 0;
    this.canvas.height = 0;
  }

  #draw(): void {
    if (this.#disposed || !this.canvas.isConnected || !this.#visible) return;
    this.#pending = false;
    const r = sharedRenderer();
    this.#off.hidden = r.ok;
    this.canvas.hidden = !r.ok;
    if (!r.ok) {
      setText(this.#off, `3D view unavailable: ${r.reason}.`);
      return;
    }
    const { center, radius } = this.arm.bounds;
    const drawn = drawInto(this.canvas, this.arm.scene, this.#camera, (aspect) => {
      this.#camera.aspect = aspect;
      // The whole box in the picture, every corner, from wherever the view has been turned.
      const tanHalf = Math.tan((FOV_DEG * Math.PI) / 360);
      const c = Math.cos(this.#elevation);
      const toCamera = new Vector3(c * Math.cos(this.#azimuth), c * Math.sin(this.#azimuth), Math.sin(this.#elevation));
      const distance = ZOOM * distanceToFrameBox(this.arm.box, toCamera, tanHalf * aspect, tanHalf);
      this.#camera.position.copy(center).add(toCamera.multiplyScalar(distance));
      this.#camera.near = Math.max(0.005, distance - 3 * radius);
      this.#camera.far = distance + 3 * radius;
      this.#camera.lookAt(center);
      this.#camera.updateProjectionMatrix();
    });
    if (drawn) this.canvas.dataset.frames = String(++this.#frames);
  }

  readonly #onDown = (e: PointerEvent): void => {
    if (e.button !== 0) return;
    this.#drag = { id: e.pointerId, x: e.clientX, y: e.clientY };
    this.canvas.setPointerCapture(e.pointerId);
  };

  readonly #onMove = (e: PointerEvent): void => {
    const d = this.#drag;
    if (!d || d.id !== e.pointerId) return;
    this.#azimuth -= (e.clientX - d.x) * TURN_PER_PX;
    // A finger's vertical movement scrolls the page (touch-action: pan-y), so only a mouse or pen tilts.
    if (e.pointerType !== "touch")
      this.#elevation = Math.min(1.5, Math.max(-0.1, this.#elevation + (e.clientY - d.y) * TURN_PER_PX));
    d.x = e.clientX;
    d.y = e.clientY;
    this.invalidate();
  };

  readonly #onUp = (e: PointerEvent): void => {
    if (this.#drag?.id === e.pointerId) this.#drag = undefined;
  };
}
