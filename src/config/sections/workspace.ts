import { z } from "zod";
import { allowedContactsFile, keepOutFile, linkVolumesFile } from "../envelopeConfig.js";
import { finite, point3, positive } from "../schemaPrimitives.js";

/**
 * The safety envelope (docs/kinematics.md): every link frame and link volume
 * along every motion's path must stay inside `keep_in`, above `floor_z` and
 * out of every `keep_out` zone (metres, in `frame`), apart from the arm's
 * other links except adjacent ones and `allowed_contacts`; the tip may travel
 * at most `max_step_m` from where it started.
 */
const workspaceFile = z
  .object({
    frame: z
      .string()
      .min(1)
      .optional()
      .describe("A URDF link rigidly attached to arm.base_link; default arm.base_link."),
    keep_in: z
      .object({ min: point3, max: point3 })
      .strict()
      .refine((b) => b.min.every((v, i) => v < (b.max[i] ?? -Infinity)), {
        message: "keep_in.min must be below keep_in.max on every axis",
      })
      .optional()
      .describe("The box `{min: [x, y, z], max: [x, y, z]}` every link must stay inside (m)."),
    floor_z: finite.optional().describe("Every link stays above this height (m)."),
    max_step_m: positive.optional().describe("The farthest the tip may travel in one motion (m)."),
    keep_out: keepOutFile
      .optional()
      .describe(
        "Boxes `{name, min, max}` or vertical cylinders `{name, center: [x, y], radius, z: [bottom, top]}` no link volume may enter.",
      ),
    allowed_contacts: allowedContactsFile
      .optional()
      .describe("`[[linkA, linkB]]`: link pairs that may touch (a gripper's fingers); never a self-collision."),
  })
  .strict()
  .describe("The safety envelope every motion's path must stay in; needs the arm's URDF.");

export const workspaceSection = {
  workspace: workspaceFile.optional(),
};

export const linkVolumesSection = {
  link_volumes: linkVolumesFile.describe(
    "Link name → collision volumes in its frame, for links whose URDF has no `<collision>` (or to replace it).",
  ),
};
