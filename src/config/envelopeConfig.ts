import { z } from "zod";

/**
 * The config keys of the envelope's bodies (docs/kinematics.md): keep-out
 * zones and allowed contacts under `workspace`, and `link_volumes` for links
 * whose URDF has no collision geometry (or whose geometry is to be replaced).
 */
const finite = z.number().finite();
const length = finite.positive();
const point3 = z.tuple([finite, finite, finite]);
/** Keep-out zones and link names appear in refusals and the console: a readable name, no markup. */
const zoneName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a zone name is 1 to 64 letters, digits, '_', '.' or '-'");

const keepOutBox = z
  .object({ name: zoneName, min: point3, max: point3 })
  .strict()
  .refine((b) => b.min.every((v, i) => v < (b.max[i] ?? -Infinity)), { message: "min must be below max on every axis" });

/** A vertical cylinder (a post, a person's standing place): axis through `center` (x, y), from z[0] to z[1]. */
const keepOutCylinder = z
  .object({ name: zoneName, center: z.tuple([finite, finite]), radius: length, z: z.tuple([finite, finite]) })
  .strict()
  .refine((c) => c.z[0] < c.z[1], { message: "z must be [bottom, top] with bottom below top" });

export const keepOutFile = z.array(z.union([keepOutBox, keepOutCylinder])).max(64).superRefine((zones, ctx) => {
  const seen = new Set<string>();
  for (const [i, zone] of zones.entries()) {
    if (seen.has(zone.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `keep_out zone ${zone.name} is named twice` });
    seen.add(zone.name);
  }
});

const linkName = z.string().min(1).max(128);

/** Pairs of links that may touch (a gripper's fingers): never a self-collision. */
export const allowedContactsFile = z.array(z.tuple([linkName, linkName])).max(256);

const linkVolume = z.discriminatedUnion("shape", [
  z.object({ shape: z.literal("capsule"), from: point3, to: point3, radius: length }).strict(),
  z.object({ shape: z.literal("sphere"), xyz: point3.default([0, 0, 0]), radius: length }).strict(),
  z.object({ shape: z.literal("cylinder"), radius: length, length, xyz: point3.default([0, 0, 0]), rpy: point3.default([0, 0, 0]) }).strict(),
  z.object({ shape: z.literal("box"), size: z.tuple([length, length, length]), xyz: point3.default([0, 0, 0]), rpy: point3.default([0, 0, 0]) }).strict(),
]);

/**
 * Link name → its volumes in the link's frame (metres, radians), replacing
 * whatever the URDF has for that link; an empty list says the link has none.
 */
export const linkVolumesFile = z
  .unknown()
  .superRefine((raw, ctx) => {
    if (raw === null || typeof raw !== "object") return;
    for (const key of Object.keys(raw)) if (key in Object.prototype) ctx.addIssue({ code: "custom", path: [key], message: "this name is a built-in property of every JavaScript object" });
  })
  .pipe(z.record(linkName, z.array(linkVolume).max(32)))
  .default({});

export type KeepOutZone =
  | { readonly name: string; readonly kind: "box"; readonly min: readonly [number, number, number]; readonly max: readonly [number, number, number] }
  | { readonly name: string; readonly kind: "cylinder"; readonly center: readonly [number, number]; readonly radius: number; readonly zMin: number; readonly zMax: number };

export type LinkVolumeSpec = z.output<typeof linkVolume>;

export function toKeepOutZones(zones: z.output<typeof keepOutFile> | undefined): KeepOutZone[] {
  return (zones ?? []).map((zone) =>
    "min" in zone ? { name: zone.name, kind: "box", min: zone.min, max: zone.max } : { name: zone.name, kind: "cylinder", center: zone.center, radius: zone.radius, zMin: zone.z[0], zMax: zone.z[1] },
  );
}
