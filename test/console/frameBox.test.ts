import { Box3, PerspectiveCamera, Vector3 } from "three";
import { describe, expect, it } from "vitest";
import { distanceToFrameBox } from "../../console/frameBox.js";

// The 3D view stands back far enough that every corner of the keep_in box (the sim arm's, down to its floor)
// is in the picture, for a tall phone canvas and a wide laptop one, from any turn of the view.
const box = new Box3(new Vector3(-0.95, -0.95, -0.4), new Vector3(0.95, 0.95, 1.2));
const FOV = 35;

describe("framing the keep_in box", () => {
  it.each([
    { aspect: 0.6, azimuth: -2.2, elevation: 0.42 },
    { aspect: 1.0, azimuth: 0.3, elevation: 1.2 },
    { aspect: 1.9, azimuth: -0.8, elevation: 0.1 },
    { aspect: 3.0, azimuth: 2.0, elevation: -0.1 },
  ])(
    "aspect $aspect, azimuth $azimuth, elevation $elevation: every corner is inside the picture, one touches its edge",
    ({ aspect, azimuth, elevation }) => {
      const tanHalf = Math.tan((FOV * Math.PI) / 360);
      const toCamera = new Vector3(
        Math.cos(elevation) * Math.cos(azimuth),
        Math.cos(elevation) * Math.sin(azimuth),
        Math.sin(elevation),
      );
      const distance = distanceToFrameBox(box, toCamera, tanHalf * aspect, tanHalf);
      const camera = new PerspectiveCamera(FOV, aspect, 0.01, 100);
      camera.up.set(0, 0, 1);
      const center = box.getCenter(new Vector3());
      camera.position.copy(center).add(toCamera.clone().multiplyScalar(distance));
      camera.lookAt(center);
      camera.updateMatrixWorld();
      let edge = 0;
      for (const x of [box.min.x, box.max.x])
        for (const y of [box.min.y, box.max.y])
          for (const z of [box.min.z, box.max.z]) {
            const p = new Vector3(x, y, z).project(camera);
            expect(Math.abs(p.x)).toBeLessThanOrEqual(1 + 1e-9);
            expect(Math.abs(p.y)).toBeLessThanOrEqual(1 + 1e-9);
            edge = Math.max(edge, Math.abs(p.x), Math.abs(p.y));
          }
      // Not needlessly far: the box fills the picture in one direction.
      expect(edge).toBeGreaterThan(0.999);
    },
  );
});
