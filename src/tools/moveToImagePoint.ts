import { z } from "zod";
import { imagePointToTable } from "../cameras/imagePointToTable.js";
import type { Cameras } from "../cameras/Cameras.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { ArmbridgeError } from "../errors.js";
import { poseOf } from "../transport/poseOf.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { planCartesianMove } from "../kinematics/planCartesianMove.js";
import { CARTESIAN_RESULT_GUIDE } from "./moveToPoint.js";
import { speedOf, speedSchema } from "./speedSchema.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { defineMotionTool, type MotionTool, type PrecheckRefusal } from "../executor/toolContract/ToolDefinition.js";
import type { MotionPlan } from "../motion/MotionPlan.js";
import { namesOf } from "../validation/nameChoices.js";

/** The highest a call may ask to hover above the table: beyond it, a point is no longer "at" the image point. */
const MAX_HEIGHT_M = 1.0;

/**
 * `move_to_image_point {camera, point: [y, x], height_m, speed?}`: the tool
 * tip to `height_m` above the table point that image point shows. The point
 * goes through the camera's calibration (a homography onto the table plane)
 * and then exactly the move_to_point path — IK from the current joints, the
 * envelope check of the whole joint path, locks, the ledger — so an
 * image-derived target gets no shortcut past any of it.
 */
export function moveToImagePointTool(config: ArmConfig, kin: ArmKinematics, cameras: Cameras): MotionTool | undefined {
  const calibrated = config.cameras.filter((c) => c.table).map((c) => c.name);
  if (calibrated.length === 0) return undefined;
  const args = imagePointArgs(config, calibrated as [string, ...string[]]);
  return defineMotionTool({
    name: "move_to_image_point",
    description:
      `Move the tool tip (${kin.chain.tipLink}) to a point you see in a camera picture (get_camera_image first): give the point as [y, x] normalised to 0-1000 and the height above the table. ` +
      "The point is mapped to the table through the camera's calibration, then moved to like move_to_point (inverse kinematics, the whole path checked against the safety envelope first). " +
      "The result's context says which table point (metres, base frame) the image point mapped to. The camera must be working and its picture fresh, or nothing moves. " +
      CARTESIAN_RESULT_GUIDE,
    args,
    blocking: true,
    resources: () => resourcesFor(config, kin.jointNames),
    timeoutMs: config.timeoutsMs.moveToImagePoint,
    onTimeout: "observe",
    precheck: (a, _ctx, signal) => refuseUnlessPictureFresh(cameras, a.camera, signal),
    plan: (a, ctx) => planToImagePoint(config, kin, a, poseOf(ctx.latestStatus())),
    context: (a) => mappingContext(config, kin, a),
    observe: observeTargets,
  });
}

function imagePointArgs(config: ArmConfig, names: [string, ...string[]]) {
  return z
    .object({
      camera: namesOf(
        z.enum(names).describe(`The calibrated camera whose picture the point is in: one of ${names.join(", ")}.`),
        {
          what: "calibrated camera",
          among: "the calibrated cameras",
        },
      ),
      // An array of exactly two (items + minItems/maxItems), not a tuple: `prefixItems` is not in every model's schema subset.
      point: z
        .array(z.number().finite().min(0).max(1000))
        .length(2)
        .transform((p) => [p[0] ?? 0, p[1] ?? 0] as const)
        .describe(
          "The point in that camera's picture as [y, x], each normalised to 0-1000 (0,0 top-left; 1000,1000 bottom-right).",
        ),
      height_m: z
        .number()
        .finite()
        .min(0)
        .max(MAX_HEIGHT_M)
        .describe(
          "How high above the table surface to put the tool tip, in metres (e.g. 0.10 to hover above a block).",
        ),
      speed: speedSchema(config),
    })
    .strict();
}

type ImagePointArgs = z.output<ReturnType<typeof imagePointArgs>>;

/** The table point an image point shows, through the camera's calibration. */
function tablePointOf(config: ArmConfig, a: ImagePointArgs): ReturnType<typeof imagePointToTable> {
  const calibration = config.cameras.find((c) => c.name === a.camera)?.table;
  if (!calibration) return { ok: false, reason: "not calibrated" };
  return imagePointToTable(calibration, a.point);
}

/** The model's point refers to a picture: if the camera is gone or its pictures are old, the scene may have changed under it. */
async function refuseUnlessPictureFresh(
  cameras: Cameras,
  camera: string,
  signal: AbortSignal,
): Promise<PrecheckRefusal | undefined> {
  try {
    const frame = await cameras.capture(camera, signal);
    if (!frame.stale) return undefined;
    const e = new ArmbridgeError("ARMB_ERR_CAMERA_STALE", {
      camera,
      ageMs: Math.round(frame.ageMs),
      limitMs: frame.staleAfterMs,
    });
    return { code: e.code, reason: e.message };
  } catch (error) {
    const e =
      error instanceof ArmbridgeError
        ? error
        : new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
            camera,
            source: "?",
            reason: (error as Error).message,
          });
    return { code: e.code, reason: e.message };
  }
}

/** The image point mapped onto the table, raised by height_m, then exactly the move_to_point plan. */
function planToImagePoint(
  config: ArmConfig,
  kin: ArmKinematics,
  a: ImagePointArgs,
  current: ReturnType<typeof poseOf>,
): MotionPlan {
  const speed = speedOf(a);
  const mapped = tablePointOf(config, a);
  if (!mapped.ok) {
    const e = new ArmbridgeError("ARMB_ERR_IMAGE_POINT_INVALID", {
      tool: "move_to_image_point",
      point: JSON.stringify(a.point),
      camera: a.camera,
      reason: mapped.reason,
    });
    return {
      targets: {},
      speed,
      refusal: {
        ok: false,
        code: e.code,
        issues: [{ path: "point", code: "image_point_invalid", message: e.message }],
      },
    };
  }
  const [x, y, z0] = mapped.table;
  return planCartesianMove(
    kin,
    { position: [x, y, z0 + a.height_m], orientation: undefined, frame: undefined, orientationRequired: false },
    current,
    "move_to_image_point",
    speed,
  );
}

/** Which table point the image point mapped to, and how far to trust the map there. */
function mappingContext(config: ArmConfig, kin: ArmKinematics, a: ImagePointArgs) {
  const mapped = tablePointOf(config, a);
  const calibration = config.cameras.find((c) => c.name === a.camera)?.table;
  if (!mapped.ok || !calibration) return undefined;
  const [x, y, z0] = mapped.table;
  return {
    image_point: { camera: a.camera, point: a.point },
    table_point: { frame: kin.chain.baseLink, x: round(x), y: round(y), z: round(z0) },
    target: { frame: kin.chain.baseLink, x: round(x), y: round(y), z: round(z0 + a.height_m) },
    // Outside the calibration points' hull the map extrapolates: expect more error there (docs/cameras.md).
    extrapolated: mapped.extrapolated,
    calibration_residual_mm: {
      rms: Math.round(calibration.residualMm.rms * 100) / 100,
      max: Math.round(calibration.residualMm.max * 100) / 100,
    },
  };
}

function round(v: number): number {
  return Math.round(v * 1e5) / 1e5;
}
