import {
  BoxGeometry,
  CylinderGeometry,
  DoubleSide,
  EdgesGeometry,
  GridHelper,
  Group,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshBasicMaterial,
  MeshLambertMaterial,
  PlaneGeometry,
  Quaternion,
  SphereGeometry,
  Vector3,
  type Material,
  type Object3D,
} from "three";
import type { EnvelopeDescriptionView, ShapeView } from "./wire.js";

/*
 * Every solid in the 3D view is one of three unit geometries (a box, an open
 * cylinder, a sphere) placed by its object's matrix, and wears one of a fixed
 * set of materials: a pose change makes new Object3Ds only, never new GPU
 * buffers or shader programs, and disposing the view's renderer frees all of
 * them at once (disposeShapes).
 */
const UNIT_BOX = new BoxGeometry(1, 1, 1);
const UNIT_BOX_EDGES = new EdgesGeometry(UNIT_BOX);
const UNIT_CYLINDER = new CylinderGeometry(1, 1, 1, 24, 1, true);
const UNIT_SPHERE = new SphereGeometry(1, 20, 14);
const UNIT_PLANE = new PlaneGeometry(1, 1);

/** What a solid stands for, and so how it is coloured (the console's legend colours). */
export type Look = "live" | "stale" | "target" | "requested" | "keep_out" | "refusal";

const solid = (color: number, opacity = 1): MeshLambertMaterial =>
  new MeshLambertMaterial({ color, ...(opacity < 1 ? { transparent: true, opacity, depthWrite: false } : {}) });

const MATERIALS: Readonly<Record<Look, Material>> = {
  live: solid(0x4f86d8),
  stale: solid(0xb4b4b4, 0.75),
  // A ghost: where an unknown motion was asked to go (the gauges' target colour) ...
  target: solid(0xe07a10, 0.42),
  // ... or where a motion awaiting approval would go (the gauges' "requested" purple).
  requested: solid(0x8e3fc0, 0.42),
  keep_out: new MeshBasicMaterial({
    color: 0xd0021b,
    transparent: true,
    opacity: 0.16,
    depthWrite: false,
    side: DoubleSide,
  }),
  refusal: new MeshBasicMaterial({ color: 0xd0021b, wireframe: true }),
};
const EDGES: Readonly<Record<Look, LineBasicMaterial>> = {
  live: new LineBasicMaterial({ color: 0x1d3f73 }),
  stale: new LineBasicMaterial({ color: 0x8a8a8a }),
  target: new LineBasicMaterial({ color: 0xa35200 }),
  requested: new LineBasicMaterial({ color: 0x6a1b9a }),
  keep_out: new LineBasicMaterial({ color: 0xd0021b }),
  refusal: new LineBasicMaterial({ color: 0xd0021b }),
};
const KEEP_IN_LINE = new LineBasicMaterial({ color: 0x2e7d32 });
const FLOOR = new MeshBasicMaterial({
  color: 0xe8e4da,
  side: DoubleSide,
  transparent: true,
  opacity: 0.85,
  depthWrite: false,
});

const Y = new Vector3(0, 1, 0);

/** A wire point (three numbers) as a vector. */
export function vec(p: readonly number[]): Vector3 {
  return new Vector3(p[0] ?? 0, p[1] ?? 0, p[2] ?? 0);
}

/** One placed link volume (or a refusal's volume): a box, or a capsule (a sphere when its ends meet). */
export function shapeObject(shape: ShapeView, look: Look): Object3D {
  if (shape.kind === "box") {
    const [x = [1, 0, 0], y = [0, 1, 0], z = [0, 0, 1]] = shape.axes;
    const size = vec(shape.half).multiplyScalar(2);
    const group = new Group();
    for (const part of [new Mesh(UNIT_BOX, MATERIALS[look]), new LineSegments(UNIT_BOX_EDGES, EDGES[look])]) {
      part.matrixAutoUpdate = false;
      part.matrix.makeBasis(vec(x), vec(y), vec(z)).scale(size).setPosition(vec(shape.center));
      group.add(part);
    }
    return group;
  }
  const a = vec(shape.a);
  const b = vec(shape.b);
  const r = shape.radius;
  const group = new Group();
  for (const end of [a, b]) {
    const ball = new Mesh(UNIT_SPHERE, MATERIALS[look]);
    ball.position.copy(end);
    ball.scale.setScalar(r);
    group.add(ball);
  }
  const length = a.distanceTo(b);
  if (length > 1e-9) {
    const tube = new Mesh(UNIT_CYLINDER, MATERIALS[look]);
    tube.position.copy(a).add(b).multiplyScalar(0.5);
    tube.quaternion.copy(new Quaternion().setFromUnitVectors(Y, b.clone().sub(a).normalize()));
    tube.scale.set(r, length, r);
    group.add(tube);
  }
  return group;
}

/** A small ball at a point (a refusal's contact). */
export function markerObject(at: readonly number[], radius: number): Object3D {
  const ball = new Mesh(UNIT_SPHERE, MATERIALS.refusal);
  ball.position.copy(vec(at));
  ball.scale.setScalar(radius);
  return ball;
}

/** The workspace as the envelope checks it: the keep_in box (green edges), the floor (a plane with a 10 cm grid) and the keep-out zones (translucent red). */
export function workspaceObject(
  envelope: EnvelopeDescriptionView,
  around: { readonly center: Vector3; readonly radius: number },
): Object3D {
  const group = new Group();
  const keepIn = envelope.keep_in ? { min: vec(envelope.keep_in.min), max: vec(envelope.keep_in.max) } : undefined;
  if (keepIn) {
    const box = new LineSegments(UNIT_BOX_EDGES, KEEP_IN_LINE);
    box.position.copy(keepIn.min).add(keepIn.max).multiplyScalar(0.5);
    box.scale.copy(keepIn.max).sub(keepIn.min);
    group.add(box);
  }
  if (envelope.floor_z !== null) {
    const cx = keepIn ? (keepIn.min.x + keepIn.max.x) / 2 : around.center.x;
    const cy = keepIn ? (keepIn.min.y + keepIn.max.y) / 2 : around.center.y;
    // Whole decimetres, so the grid's lines fall every 10 cm.
    const span = Math.max(
      0.2,
      Math.ceil(
        10 * (keepIn ? Math.max(keepIn.max.x - keepIn.min.x, keepIn.max.y - keepIn.min.y) : 2 * around.radius),
      ) / 10,
    );
    const floor = new Mesh(UNIT_PLANE, FLOOR);
    floor.position.set(cx, cy, envelope.floor_z);
    floor.scale.set(span, span, 1);
    floor.renderOrder = -1;
    group.add(floor);
    const grid = new GridHelper(span, Math.round(span * 10), 0xb9b2a0, 0xd3cdbd);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(cx, cy, envelope.floor_z + 1e-4);
    group.add(grid);
  }
  for (const zone of envelope.keep_out) {
    if (zone.kind === "box") {
      const size = vec(zone.max).sub(vec(zone.min));
      const center = vec(zone.min).add(vec(zone.max)).multiplyScalar(0.5);
      for (const part of [new Mesh(UNIT_BOX, MATERIALS.keep_out), new LineSegments(UNIT_BOX_EDGES, EDGES.keep_out)]) {
        part.position.copy(center);
        part.scale.copy(size);
        group.add(part);
      }
    } else {
      const tube = new Mesh(UNIT_CYLINDER, MATERIALS.keep_out);
      tube.rotation.x = Math.PI / 2;
      const [x = 0, y = 0] = zone.center;
      const [low = 0, high = 0] = zone.z;
      tube.position.set(x, y, (low + high) / 2);
      tube.scale.set(zone.radius, high - low, zone.radius);
      group.add(tube);
    }
  }
  return group;
}

/** Frees the shared geometries and materials (the page is going away). */
export function disposeShapes(): void {
  for (const g of [UNIT_BOX, UNIT_BOX_EDGES, UNIT_CYLINDER, UNIT_SPHERE, UNIT_PLANE]) g.dispose();
  for (const m of [...Object.values(MATERIALS), ...Object.values(EDGES), KEEP_IN_LINE, FLOOR]) m.dispose();
}
