import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { HostedBridgePort } from "../../bridge/BridgePort.js";
import { ArmbridgeError } from "../../errors.js";
import { EnvelopeModel } from "../../safety/EnvelopeModel.js";
import { placedVolumes } from "../../safety/placedVolumes.js";
import { parseInput } from "./parseInput.js";
import type { PlacedVolumesView } from "../../wire/EnvelopeView.js";
import { serveRoute } from "./serveRoute.js";

/** Every query key is an axis name, every value its position (rad; the gripper's 0..1 is accepted and not placed). */
const poseQuery = z.record(z.string().max(200), z.coerce.number().finite());

/**
 * The link volumes placed for a pose that is not (yet) the arm's, so that a
 * 3D view can draw a call's target as a ghost with exactly the volumes the
 * safety envelope checks there: one kinematics, on the server. Chain joints
 * the query leaves out stay where the arm last reported them, and the answer
 * says which those were.
 */
export function placeVolumesFor(bridge: HostedBridgePort, query: Readonly<Record<string, number>>): PlacedVolumesView {
  const model = EnvelopeModel.of(bridge.config);
  if (!model) throw new ArmbridgeError("ARMB_ERR_NO_KINEMATICS", { what: "GET /v1/arm/volumes" });
  const arm = bridge.config.arm;
  const axes = [...arm.joints.map((j) => j.name), ...(arm.gripper ? [arm.gripper.name] : [])];
  const strangers = Object.keys(query).filter((name) => !axes.includes(name));
  if (strangers.length > 0) {
    throw new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", {
      issues: strangers.map((n) => `query.${n}: not an axis of ${arm.name} (its axes: ${axes.join(", ")})`).join("; "),
    });
  }
  const reported = bridge.arm.latestStatus()?.axes ?? {};
  const joints: Record<string, number> = {};
  const fromStatus: string[] = [];
  const missing: string[] = [];
  for (const name of model.kin.jointNames) {
    const asked = query[name];
    const seen = reported[name]?.position;
    if (asked !== undefined) joints[name] = asked;
    else if (seen !== undefined) {
      joints[name] = seen;
      fromStatus.push(name);
    } else missing.push(name);
  }
  if (missing.length > 0) {
    throw new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", {
      issues: `query: name a position for ${missing.join(", ")}: the arm has reported none yet`,
    });
  }
  const volumes = placedVolumes(model, joints) ?? [];
  return { frame: model.frame, joints, from_status: fromStatus, volumes };
}

export function registerArmVolumesRoute(app: FastifyInstance, bridge: HostedBridgePort): void {
  serveRoute(app, "armVolumes", async (request) =>
    placeVolumesFor(bridge, parseInput(poseQuery, request.query, "query")),
  );
}
