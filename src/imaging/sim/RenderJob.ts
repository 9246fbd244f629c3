import type { SceneConfig, SimCameraConfig } from "../../config/sections/simulator.js";
import type { ArmView } from "./renderScene.js";

/** One picture for the render worker to draw and encode: plain data (it crosses a thread by structured clone). */
export interface RenderJob {
  readonly id: number;
  readonly view: SimCameraConfig;
  readonly scene: SceneConfig | undefined;
  readonly arm: ArmView | undefined;
}

/** The worker's answer to job `id`: the encoded bytes, or why there are none. */
export type RenderReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly bytes: Uint8Array;
      readonly width: number;
      readonly height: number;
    }
  | { readonly id: number; readonly ok: false; readonly message: string };
