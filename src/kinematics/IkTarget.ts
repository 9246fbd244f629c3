import type { Transform } from "./rigidTransform.js";

/** What the solver must reach: a position, and for a full-pose solve the tip's orientation too. */
export interface IkTarget {
  readonly position: readonly [number, number, number];
  /** A transform whose rotation is the wanted tip orientation; omit for a position-only solve. */
  readonly orientation?: Transform | undefined;
}
