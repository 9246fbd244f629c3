/**
 * One clearance the envelope keeps positive along a path: an item against
 * the workspace (floor, keep_in, keep_out zones), two link volumes against
 * each other, or the tip's travel against max_step_m.
 */
export type EnvelopeTest =
  /** Height: floor_z and keep_in's bottom and top (a turn about a vertical axis cannot change it). */
  | { readonly kind: "vertical"; readonly item: number }
  /** Sideways: keep_in's four sides and the keep-out zones. */
  | { readonly kind: "workspace"; readonly item: number }
  | { readonly kind: "pair"; readonly item: number; readonly other: number }
  | { readonly kind: "step"; readonly item: number };

/** What a clearance was measured against, for a refusal and the console. */
export type Obstacle =
  | { readonly kind: "floor"; readonly name: "floor_z" }
  | { readonly kind: "keep_in"; readonly name: string }
  | { readonly kind: "keep_out"; readonly name: string }
  | { readonly kind: "link"; readonly name: string }
  | { readonly kind: "max_step"; readonly name: "max_step_m" };

export interface Contact {
  readonly obstacle: Obstacle;
  /** Where the item comes closest to the obstacle (workspace frame, metres): a point of the item's volume, or for two links a point of either. */
  readonly point: [number, number, number];
  readonly clearance: number;
}
