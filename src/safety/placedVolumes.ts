import { jointVectorOf } from "../kinematics/armKinematics.js";
import { BOX, STRIDE } from "./EnvelopeItems.js";
import type { EnvelopeModel } from "./EnvelopeModel.js";

type Point = readonly [number, number, number];

/** A link volume where it is, in the workspace frame (metres): what a 3D view draws. */
export type PlacedShape =
  | { readonly kind: "capsule"; readonly a: Point; readonly b: Point; readonly radius: number }
  | {
      readonly kind: "box";
      readonly center: Point;
      readonly axes: readonly [Point, Point, Point];
      readonly half: Point;
    };

export interface PlacedVolume {
  readonly link: string;
  readonly shape: PlacedShape;
}

/** Item `i` as the model's buffers hold it now (placed by the last `place`). */
export function placedShape(model: EnvelopeModel, i: number): PlacedShape {
  const W = model.items.world,
    o = STRIDE * i;
  const p = (k: number): Point => [round(W[k] ?? 0), round(W[k + 1] ?? 0), round(W[k + 2] ?? 0)];
  if (model.items.items[i]?.kind === BOX)
    return { kind: "box", center: p(o), axes: [p(o + 3), p(o + 6), p(o + 9)], half: p(o + 12) };
  return { kind: "capsule", a: p(o), b: p(o + 3), radius: round(W[o + 6] ?? 0) };
}

/** Every link volume placed for the arm's joints `pose` (undefined when a chain joint is missing from it). */
export function placedVolumes(
  model: EnvelopeModel,
  pose: Readonly<Record<string, number>> | undefined,
): PlacedVolume[] | undefined {
  const q = jointVectorOf(model.kin, pose);
  if (!q) return undefined;
  const kernel = model.kin.chain.kernel;
  kernel.forward(q);
  const out: PlacedVolume[] = [];
  for (const [i, it] of model.items.items.entries()) {
    if (it.what !== "volume") continue;
    model.items.place(i, kernel.jointFrames);
    out.push({ link: it.link, shape: placedShape(model, i) });
  }
  return out;
}

function round(v: number): number {
  return Math.round(v * 1e5) / 1e5;
}
