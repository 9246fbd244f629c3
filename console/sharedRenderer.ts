import { Color, Vector2, WebGLRenderer, type Camera, type Scene } from "three";
import { disposeShapes } from "./armShapes.js";

/*
 * One WebGL context for the whole page, however many 3D views it shows (the
 * arm panel and one per card): browsers cap live contexts at a handful and
 * drop the oldest beyond it. Each view is a plain 2D canvas; a frame is
 * rendered here and copied into it (drawImage in the same task, so the
 * drawing buffer need not be preserved).
 */

type RendererState =
  { readonly ok: true; readonly renderer: WebGLRenderer } | { readonly ok: false; readonly reason: string };

let state: RendererState | undefined;
const lostListeners = new Set<() => void>();

function create(): RendererState {
  const canvas = document.createElement("canvas");
  let gl: WebGL2RenderingContext | null;
  try {
    gl = canvas.getContext("webgl2", {
      antialias: true,
      alpha: false,
      depth: true,
      stencil: false,
      powerPreference: "low-power",
    });
  } catch (error) {
    return {
      ok: false,
      reason: `the browser refused a WebGL 2 context (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  // Asked first, so that three.js never logs its own error for a browser without WebGL.
  if (!gl)
    return {
      ok: false,
      reason: "this browser gives the page no WebGL 2 (turned off in its settings or policy, or no graphics driver)",
    };
  try {
    const renderer = new WebGLRenderer({ canvas, context: gl, antialias: true });
    renderer.setClearColor(new Color(0xffffff), 1);
    canvas.addEventListener("webglcontextlost", (e) => {
      // Asking for a restore: the browser gives the context back when it can.
      e.preventDefault();
      state = {
        ok: false,
        reason: "the graphics context was lost (the GPU was reset or reclaimed); it comes back by itself",
      };
      for (const l of lostListeners) l();
    });
    canvas.addEventListener("webglcontextrestored", () => {
      state = { ok: true, renderer };
      for (const l of lostListeners) l();
    });
    addEventListener("pagehide", (e) => {
      if (e.persisted) return;
      disposeShapes();
      renderer.dispose();
    });
    return { ok: true, renderer };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The page's renderer, made on first use; or why there is none. */
export function sharedRenderer(): RendererState {
  state ??= create();
  return state;
}

/** Called when the context is lost or comes back: the views say so, or draw again. */
export function onRendererChange(listener: () => void): () => void {
  lostListeners.add(listener);
  return () => lostListeners.delete(listener);
}

/** Renders `scene` into `target` at its size on screen (device pixels, at most 2 per CSS pixel); false when there is nothing to draw with or nowhere to draw. */
export function drawInto(
  target: HTMLCanvasElement,
  scene: Scene,
  camera: Camera,
  setAspect: (aspect: number) => void,
): boolean {
  const r = sharedRenderer();
  if (!r.ok) return false;
  const ratio = Math.min(2, devicePixelRatio || 1);
  const width = Math.round(target.clientWidth * ratio);
  const height = Math.round(target.clientHeight * ratio);
  if (width === 0 || height === 0) return false;
  if (target.width !== width) target.width = width;
  if (target.height !== height) target.height = height;
  const size = r.renderer.getDrawingBufferSize(new Vector2());
  if (size.x !== width || size.y !== height) {
    r.renderer.setPixelRatio(1);
    r.renderer.setSize(width, height, false);
  }
  setAspect(width / height);
  r.renderer.render(scene, camera);
  const ctx = target.getContext("2d");
  if (!ctx) return false;
  ctx.drawImage(r.renderer.domElement, 0, 0);
  return true;
}
