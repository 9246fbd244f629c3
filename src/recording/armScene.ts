import { mat4, quat, vec3 } from "gl-matrix";
import type { ArmConfig } from "../config/ArmConfig.js";
import { jointVectorOf } from "../kinematics/armKinematics.js";
import { positionOf, quaternionOf, type Transform } from "../kinematics/rigidTransform.js";
import { EnvelopeModel } from "../safety/EnvelopeModel.js";
import { placedVolumes, type PlacedShape } from "../safety/placedVolumes.js";
import type { EnvelopeContact } from "../safety/EnvelopeContact.js";
import { timeOf } from "./recordingChannels.js";

type Point = readonly [number, number, number];
type Color = { r: number; g: number; b: number; a: number };
type Pose = {
  position: { x: number; y: number; z: number };
  orientation: { x: number; y: number; z: number; w: number };
};

const LINK: Color = { r: 0.55, g: 0.65, b: 0.8, a: 0.6 };
const KEEP_IN: Color = { r: 0.2, g: 0.8, b: 0.3, a: 0.08 };
const KEEP_OUT: Color = { r: 0.9, g: 0.2, b: 0.2, a: 0.25 };
const FLOOR: Color = { r: 0.5, g: 0.5, b: 0.5, a: 0.3 };
const REFUSAL: Color = { r: 1, g: 0.3, b: 0, a: 1 };
const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };
const FLOOR_HALF_M = 1.5;

const at = (p: Point): Pose => ({ position: { x: p[0], y: p[1], z: p[2] }, orientation: IDENTITY });

/** The frames and volumes a 3D view draws for a pose: what the console shows, as Foxglove messages. */
export class ArmScene {
  readonly #model: EnvelopeModel;

  private constructor(model: EnvelopeModel) {
    this.#model = model;
  }

  /** Undefined for an arm without kinematics (no URDF): then there is no /tf and no /scene. */
  static of(config: ArmConfig): ArmScene | undefined {
    const model = EnvelopeModel.of(config);
    return model ? new ArmScene(model) : undefined;
  }

  /** foxglove.FrameTransforms: each chain link's pose in the base link's frame; undefined while a joint is unknown. */
  transforms(pose: Readonly<Record<string, number>>, ms: number): object | undefined {
    const kin = this.#model.kin;
    const q = jointVectorOf(kin, pose);
    if (!q) return undefined;
    const { links } = kin.chain.frames(q);
    const timestamp = timeOf(ms);
    const frame = (child: string, t: Transform): object => {
      const [x, y, z] = positionOf(t);
      return {
        timestamp,
        parent_frame_id: kin.chain.baseLink,
        child_frame_id: child,
        translation: { x, y, z },
        rotation: quaternionOf(t),
      };
    };
    return { transforms: kin.chain.linkNames.map((name, i) => frame(name, links[i] ?? new Float64Array(16))) };
  }

  /** foxglove.SceneUpdate: link volumes at `pose`, keep-in, floor, keep-out zones and the newest refusal. */
  update(pose: Readonly<Record<string, number>>, refusal: EnvelopeContact | undefined, ms: number): object | undefined {
    const volumes = placedVolumes(this.#model, pose);
    if (!volumes) return undefined;
    const m = this.#model;
    const entity = (id: string, shapes: Partial<Record<"cubes" | "cylinders" | "spheres" | "texts", object[]>>) => ({
      timestamp: timeOf(ms),
      frame_id: m.frame,
      id,
      lifetime: { sec: 0, nsec: 0 },
      frame_locked: false,
      metadata: [],
      arrows: [],
      cubes: shapes.cubes ?? [],
      spheres: shapes.spheres ?? [],
      cylinders: shapes.cylinders ?? [],
      lines: [],
      triangles: [],
      texts: shapes.texts ?? [],
      models: [],
    });
    const cubes: object[] = [],
      cylinders: object[] = [],
      spheres: object[] = [];
    for (const v of volumes) addShape(v.shape, { cubes, cylinders, spheres });
    const entities = [entity("links", { cubes, cylinders, spheres }), ...this.#workspace(entity)];
    if (refusal) {
      const p = at(refusal.point);
      const words = `refused: ${refusal.link} vs ${JSON.stringify(refusal.obstacle)} (${refusal.clearance_m.toFixed(3)} m)`;
      entities.push(
        entity("refusal", {
          spheres: [{ pose: p, size: { x: 0.02, y: 0.02, z: 0.02 }, color: REFUSAL }],
          texts: [{ pose: p, billboard: true, font_size: 14, scale_invariant: true, color: REFUSAL, text: words }],
        }),
      );
    }
    return { deletions: [], entities };
  }

  #workspace(entity: (id: string, shapes: Record<string, object[]>) => object): object[] {
    const m = this.#model;
    const out: object[] = [];
    if (m.keepIn) out.push(entity("keep_in", { cubes: [boxCube(m.keepIn.min, m.keepIn.max, KEEP_IN)] }));
    if (m.floorZ !== undefined) {
      const z = m.floorZ;
      out.push(
        entity("floor", {
          cubes: [boxCube([-FLOOR_HALF_M, -FLOOR_HALF_M, z - 0.002], [FLOOR_HALF_M, FLOOR_HALF_M, z], FLOOR)],
        }),
      );
    }
    for (const zone of m.keepOut) {
      if (zone.kind === "box")
        out.push(entity(`keep_out/${zone.name}`, { cubes: [boxCube(zone.min, zone.max, KEEP_OUT)] }));
      else {
        const d = 2 * zone.radius;
        const center: Point = [zone.center[0], zone.center[1], (zone.zMin + zone.zMax) / 2];
        const cylinder = {
          pose: at(center),
          size: { x: d, y: d, z: zone.zMax - zone.zMin },
          bottom_scale: 1,
          top_scale: 1,
          color: KEEP_OUT,
        };
        out.push(entity(`keep_out/${zone.name}`, { cylinders: [cylinder] }));
      }
    }
    return out;
  }
}

function boxCube(min: readonly number[], max: readonly number[], color: Color): object {
  const c = (k: number): number => ((min[k] ?? 0) + (max[k] ?? 0)) / 2;
  const s = (k: number): number => Math.abs((max[k] ?? 0) - (min[k] ?? 0));
  return { pose: at([c(0), c(1), c(2)]), size: { x: s(0), y: s(1), z: s(2) }, color };
}

/** A capsule as a cylinder between its end points and a sphere at each; a box as a cube on its own axes. */
function addShape(shape: PlacedShape, into: { cubes: object[]; cylinders: object[]; spheres: object[] }): void {
  if (shape.kind === "box") {
    const [ax, ay, az] = shape.axes;
    const m = mat4.fromValues(ax[0], ax[1], ax[2], 0, ay[0], ay[1], ay[2], 0, az[0], az[1], az[2], 0, 0, 0, 0, 1);
    const q = mat4.getRotation(quat.create(), m);
    const [x, y, z] = shape.center;
    into.cubes.push({
      pose: { position: { x, y, z }, orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } },
      size: { x: 2 * shape.half[0], y: 2 * shape.half[1], z: 2 * shape.half[2] },
      color: LINK,
    });
    return;
  }
  const d = 2 * shape.radius;
  const ball = { x: d, y: d, z: d };
  into.spheres.push({ pose: at(shape.a), size: ball, color: LINK }, { pose: at(shape.b), size: ball, color: LINK });
  const a = vec3.fromValues(...shape.a),
    b = vec3.fromValues(...shape.b);
  const axis = vec3.subtract(vec3.create(), b, a);
  const length = vec3.length(axis);
  if (length < 1e-9) return;
  // A foxglove cylinder stands on its z axis: turn z onto the capsule's axis.
  const q = quat.create();
  quat.rotationTo(q, vec3.fromValues(0, 0, 1), vec3.scale(axis, axis, 1 / length));
  const mid = vec3.lerp(vec3.create(), a, b, 0.5);
  into.cylinders.push({
    pose: { position: { x: mid[0], y: mid[1], z: mid[2] }, orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } },
    size: { x: d, y: d, z: length },
    bottom_scale: 1,
    top_scale: 1,
    color: LINK,
  });
}
