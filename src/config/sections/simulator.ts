import { z } from "zod";

/**
 * The simulator's keys: how the simulated overhead camera looks
 * (`cameras[].sim`) and what it sees (`scene:`). They stay in the bridge's
 * schema because the bridge itself renders them: a `source: sim` camera is
 * drawn in the bridge's process (src/cameras/sources/SimCameraSource.ts),
 * from the bridge's own view of the arm, as well as by firmware-sim's camera
 * server. They mean nothing to a real arm.
 */
const finite = z.number().finite();
const blockName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a camera name is a letter then up to 63 letters, digits or underscores")
  .refine((n) => !(n in Object.prototype), { message: "this name is a built-in property of every JavaScript object; choose another" });

/** The simulated camera: a pinhole looking straight down at the table, rendering the scene and the arm. */
export const simCameraFile = z
  .object({
    position: z.tuple([finite, finite, finite]).default([0.5, 0, 0.8]).describe("The camera's optical centre in the arm's base frame (m)."),
    yaw_deg: finite.default(0).describe("Rotation about the vertical: 0 puts the base frame's +x at the top of the image and +y at the left."),
    fov_deg: finite.gt(1).lt(170).default(60).describe("Horizontal field of view."),
    width: z.number().int().min(16).max(4096).default(640),
    height: z.number().int().min(16).max(4096).default(480),
    format: z.enum(["jpeg", "png"]).default("jpeg"),
    jpeg_quality: z.number().int().min(1).max(100).default(90),
  })
  .strict()
  .describe("Simulator only (`source: sim`): the simulated overhead camera, a pinhole looking straight down at the table.");

const colour = z.union([
  z.enum(["red", "green", "blue", "yellow", "orange", "purple", "white", "black", "grey"]),
  z.string().regex(/^#[0-9a-fA-F]{6}$/, "a colour name or #rrggbb"),
]);

const sceneFile = z
  .object({
    /** The table surface the blocks stand on, in the arm's base frame (m), and its colour. */
    table: z
      .object({ z: finite, color: colour.default("#c8b89a") })
      .strict()
      .default({ z: 0, color: "#c8b89a" })
      .describe("The table surface the blocks stand on, in the arm's base frame (m), and its colour."),
    blocks: z
      .array(
        z
          .object({
            name: blockName,
            color: colour,
            x: finite.describe("The block's centre on the table (base frame, m)."),
            y: finite,
            size: finite.positive().max(1).describe("Edge length of the (square, axis-aligned) block's footprint (m)."),
            height: finite.min(0).max(1).optional().describe("How tall it stands (m); default `size`, a cube. 0 is a flat marker lying on the table."),
          })
          .strict(),
      )
      .max(64)
      .default([]),
  })
  .strict();

export const sceneFileSchema = sceneFile.optional().describe("Simulator only: what the simulated camera sees, the table and the blocks on it.");

export function checkScene(scene: z.output<typeof sceneFileSchema>, ctx: z.RefinementCtx): void {
  if (!scene) return;
  const names = new Set<string>();
  for (const [i, b] of scene.blocks.entries()) {
    if (names.has(b.name)) ctx.addIssue({ code: "custom", path: ["scene", "blocks", i, "name"], message: `duplicate block ${b.name}` });
    names.add(b.name);
  }
}

export interface SimCameraConfig {
  readonly position: readonly [number, number, number];
  readonly yawDeg: number;
  readonly fovDeg: number;
  readonly width: number;
  readonly height: number;
  readonly format: "jpeg" | "png";
  readonly jpegQuality: number;
}

export interface SceneBlock {
  readonly name: string;
  readonly color: string;
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly height: number;
}

export interface SceneConfig {
  readonly table: { readonly z: number; readonly color: string };
  readonly blocks: readonly SceneBlock[];
}

export const DEFAULT_SIM = simCameraFile.parse({});

export function toSceneConfig(scene: z.output<typeof sceneFileSchema>): SceneConfig | undefined {
  return scene ? { table: scene.table, blocks: scene.blocks.map((b) => ({ name: b.name, color: b.color, x: b.x, y: b.y, size: b.size, height: b.height ?? b.size })) } : undefined;
}
