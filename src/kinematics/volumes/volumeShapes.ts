import type { LinkVolumeSpec } from "../../config/envelopeConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { fromXyzRpy, type Transform } from "../rigidTransform.js";
import { fitBoundingVolume } from "./fitBoundingVolume.js";
import type { UrdfCollision } from "./parseUrdfCollisions.js";
import { readMeshPoints } from "./readMeshPoints.js";
import { resolveMeshPath } from "./resolveMeshPath.js";
import { applyTransform, rotate, type LinkVolume, type Vec3, type VolumeShape } from "./VolumeShape.js";

/** A `link_volumes` entry as a volume in its link's frame. */
export function volumeFromSpec(link: string, spec: LinkVolumeSpec): LinkVolume {
  const source = "config link_volumes";
  switch (spec.shape) {
    case "capsule":
      return { link, source, shape: { kind: "capsule", a: spec.from, b: spec.to, radius: spec.radius } };
    case "sphere":
      return { link, source, shape: { kind: "capsule", a: spec.xyz, b: spec.xyz, radius: spec.radius } };
    case "cylinder":
      return { link, source, shape: alongZ(fromXyzRpy(spec.xyz, spec.rpy), spec.length, spec.radius) };
    case "box":
      return { link, source, shape: box(fromXyzRpy(spec.xyz, spec.rpy), spec.size) };
  }
}

/**
 * A URDF `<collision>` as a volume in its link's frame. A mesh is read
 * (STL or OBJ, resolved as resolveMeshPath says) and bounded; a mesh that
 * cannot be found or read stops the start, naming the link and the fix.
 */
export function volumeFromUrdf(c: UrdfCollision, urdfPath: string | undefined, env: NodeJS.ProcessEnv): LinkVolume {
  const origin = fromXyzRpy(c.xyz, c.rpy);
  const g = c.geometry;
  switch (g.kind) {
    case "sphere":
      return { link: c.link, source: "urdf sphere", shape: { kind: "capsule", a: c.xyz, b: c.xyz, radius: g.radius } };
    case "cylinder":
      return {
        link: c.link,
        source: "urdf cylinder (checked as the capsule around it)",
        shape: alongZ(origin, g.length, g.radius),
      };
    case "capsule":
      return { link: c.link, source: "urdf capsule", shape: alongZ(origin, g.length, g.radius) };
    case "box":
      return { link: c.link, source: "urdf box", shape: box(origin, g.size) };
    case "mesh": {
      const where = resolveMeshPath(g.filename, urdfPath, env);
      const fail = (reason: string): never => {
        throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", {
          path: urdfPath ?? "robot_description",
          reason: `link ${c.link}'s collision mesh ${g.filename} ${reason}; give the link a link_volumes entry in the arm config instead (docs/kinematics.md)`,
        });
      };
      if (!("path" in where))
        return fail(
          `was not found (looked in: ${where.tried.join(", ") || "nowhere: a relative path needs arm.urdf as a file"})`,
        );
      let points: Vec3[] = [];
      try {
        points = readMeshPoints(where.path);
      } catch (error) {
        fail(`cannot be read: ${(error as Error).message}`);
      }
      const placed = points.map((p) =>
        applyTransform(origin, [p[0] * g.scale[0], p[1] * g.scale[1], p[2] * g.scale[2]]),
      );
      const shape = fitBoundingVolume(placed);
      return {
        link: c.link,
        source: `urdf mesh ${g.filename} (bounding ${shape.kind} of ${points.length} vertices)`,
        shape,
      };
    }
  }
}

/** The capsule around a cylinder of this length along the z axis of `t` (the URDF convention). */
function alongZ(t: Transform, length: number, radius: number): VolumeShape {
  return {
    kind: "capsule",
    a: applyTransform(t, [0, 0, -length / 2]),
    b: applyTransform(t, [0, 0, length / 2]),
    radius,
  };
}

function box(t: Transform, size: readonly [number, number, number]): VolumeShape {
  return {
    kind: "box",
    center: applyTransform(t, [0, 0, 0]),
    axes: [rotate(t, [1, 0, 0]), rotate(t, [0, 1, 0]), rotate(t, [0, 0, 1])],
    half: [size[0] / 2, size[1] / 2, size[2] / 2],
  };
}
