import type { ArmConfig } from "../../config/ArmConfig.js";
import type { CameraConfig } from "../../config/sections/cameras.js";
import type { CameraFrame } from "../CameraFrame.js";
import { encodeImage } from "../../imaging/encodeImage.js";
import { armViewOf } from "../../imaging/sim/armViewOf.js";
import { renderScene } from "../../imaging/sim/renderScene.js";
import { RENDER_WORKER, type Rendered } from "../../imaging/sim/RenderWorker.js";
import { TopDownCamera } from "../../imaging/sim/TopDownCamera.js";
import type { CameraSource } from "./CameraSource.js";

/** A pose and when it was measured (epoch ms). */
export interface StampedPose {
  readonly pose: Readonly<Record<string, number>>;
  readonly stampMs: number;
}

/**
 * The simulated overhead camera as a bridge camera: renders config `scene:`
 * and the arm at the pose `pose()` gives, the arm's newest reported status
 * (firmware-sim's camera server draws the same scene from the simulator's
 * true joint state, with the same renderer, src/imaging/sim/). The picture is
 * as old as the pose it draws, so a bridge that lost its arm link gets stale
 * pictures.
 */
export class SimCameraSource implements CameraSource {
  readonly #camera: CameraConfig;
  readonly #arm: ArmConfig;
  readonly #pose: () => StampedPose | undefined;
  readonly #freshPose: ((signal: AbortSignal) => Promise<StampedPose | undefined>) | undefined;
  readonly #now: () => number;
  readonly #view: TopDownCamera;

  constructor(options: {
    readonly camera: CameraConfig;
    readonly arm: ArmConfig;
    /** The pose to draw now. */
    readonly pose: () => StampedPose | undefined;
    /** For `grab`: a pose worth waiting a moment for (the next status), when the newest is not fresh. */
    readonly freshPose?: ((signal: AbortSignal) => Promise<StampedPose | undefined>) | undefined;
    readonly now?: () => number;
  }) {
    this.#camera = options.camera;
    this.#arm = options.arm;
    this.#pose = options.pose;
    this.#freshPose = options.freshPose;
    this.#now = options.now ?? Date.now;
    this.#view = new TopDownCamera(options.camera.sim);
  }

  /** A frame drawn off the event loop (the render worker), of the next fresh pose when one is worth waiting for. */
  async grab(signal: AbortSignal): Promise<CameraFrame> {
    return this.#drawOffThread(this.#freshPose ? await this.#freshPose(signal) : this.#pose());
  }

  /** One frame, synchronously, in this thread, of `stamped` (default: the pose now): for tests and for kept frames drawn when looked at. */
  render(stamped: StampedPose | undefined = this.#pose()): CameraFrame {
    const now = this.#now();
    const arm = armViewOf(this.#arm, stamped?.pose);
    const { format, jpegQuality } = this.#camera.sim;
    const image = renderScene(this.#view, this.#arm.scene, arm);
    return this.#frameOf(
      stamped,
      now,
      { bytes: encodeImage(image, format, jpegQuality), width: image.width, height: image.height },
      arm !== undefined,
    );
  }

  async #drawOffThread(stamped: StampedPose | undefined): Promise<CameraFrame> {
    const now = this.#now();
    const arm = armViewOf(this.#arm, stamped?.pose);
    const rendered = await RENDER_WORKER.render({ view: this.#camera.sim, scene: this.#arm.scene, arm });
    return this.#frameOf(stamped, now, rendered, arm !== undefined);
  }

  #frameOf(stamped: StampedPose | undefined, now: number, image: Rendered, armDrawn: boolean): CameraFrame {
    const capturedAtMs = stamped ? Math.min(stamped.stampMs, now) : now;
    return {
      camera: this.#camera.name,
      source: "sim",
      format: this.#camera.sim.format,
      bytes: image.bytes,
      width: image.width,
      height: image.height,
      capturedAtMs,
      clock: "wall",
      captureTimeFrom: "rendered",
      ageMs: Math.max(0, now - capturedAtMs),
      notes: armDrawn ? [] : ["the arm's pose is unknown (no status yet), so the arm is not drawn"],
    };
  }

  /**
   * The pose as it is now, drawn only when `draw` is called: the picture is a
   * function of the pose, so keeping the pose keeps the picture, without the
   * drawing and encoding (tens to hundreds of ms) holding up the caller — a
   * motion about to be sent — or memory holding bytes nobody looks at. It is
   * drawn off the event loop when looked at, as every picture of "now" is: an
   * operator's console opening many cards at once must not hold up the link.
   */
  deferred(): { readonly capturedAtMs: number; readonly draw: () => Promise<CameraFrame> } {
    const stamped = this.#pose();
    return {
      capturedAtMs: stamped ? Math.min(stamped.stampMs, this.#now()) : this.#now(),
      draw: () => this.#drawOffThread(stamped),
    };
  }

  close(): void {
    // Renders on demand; nothing to release.
  }
}
