import { Vector3, type Box3 } from "three";

/**
 * How far from the box's centre a camera looking at it along `toCamera` (a
 * unit vector from the centre out to the camera; z up) must stand for every
 * corner of the box to be in the picture: each corner's sideways and upward
 * offsets must fit within its depth times the tangent of the half-angle of
 * view. The keep_in box is the workspace's edge: a view that cuts it off
 * hides how close the arm is to it.
 */
export function distanceToFrameBox(box: Box3, toCamera: Vector3, tanHalfWidth: number, tanHalfHeight: number): number {
  const center = box.getCenter(new Vector3());
  const forward = toCamera.clone().negate();
  const right = new Vector3().crossVectors(forward, new Vector3(0, 0, 1));
  // Looking straight down there is no "sideways" from z-up: frame the box's bounding sphere instead.
  if (right.lengthSq() < 1e-9)
    return box.getSize(new Vector3()).length() / 2 / Math.sin(Math.atan(Math.min(tanHalfWidth, tanHalfHeight)));
  right.normalize();
  const up = new Vector3().crossVectors(right, forward).normalize();
  let distance = 0;
  for (const x of [box.min.x, box.max.x])
    for (const y of [box.min.y, box.max.y])
      for (const z of [box.min.z, box.max.z]) {
        const q = new Vector3(x, y, z).sub(center);
        const towards = q.dot(toCamera);
        distance = Math.max(
          distance,
          towards + Math.abs(q.dot(right)) / tanHalfWidth,
          towards + Math.abs(q.dot(up)) / tanHalfHeight,
        );
      }
  return distance;
}
