import { AmbientLight, Box3, DirectionalLight, Group, Scene, Sphere, Vector3, type Object3D } from "three";
import { markerObject, shapeObject, vec, workspaceObject, type Look } from "./armShapes.js";
import type { EnvelopeDescriptionView, EnvelopeStateView, ShapeView } from "./wire.js";

export type PlacedVolumes = readonly { readonly link: string; readonly shape: ShapeView }[];
export type LastRefusal = NonNullable<EnvelopeStateView["last_refusal"]>;

/**
 * What one 3D view shows, in the envelope's frame (z up, metres): the
 * workspace (keep_in box, floor, keep-out zones), the arm's link volumes
 * where it is, optionally a ghost of the same volumes at a call's target, and
 * the volumes of the newest envelope refusal. Layers are rebuilt from plain
 * data on each change; all geometry is shared (armShapes.ts).
 */
export class ArmScene {
  readonly scene = new Scene();
  /** What the camera frames: the keep_in box (down to the floor) when there is one, else room around the arm where it was first seen. */
  readonly box: Box3;
  /** The arm's reach: every link volume stays within it. */
  readonly bounds: Sphere;
  readonly #workspace: Object3D;
  readonly #live = new Group();
  readonly #ghost = new Group();
  readonly #refusal = new Group();
  #liveVolumes: PlacedVolumes = [];
  #ghostVolumes: PlacedVolumes = [];
  #ghostLook: "target" | "requested" = "target";

  constructor(envelope: EnvelopeDescriptionView, firstSeen: PlacedVolumes) {
    this.box = framedBox(envelope, firstSeen);
    // The box's longest half-side, not its half-diagonal: the arm stays within it in every pose.
    const size = this.box.getSize(new Vector3());
    this.bounds = new Sphere(this.box.getCenter(new Vector3()), 0.58 * Math.max(size.x, size.y, size.z));
    this.#workspace = workspaceObject(envelope, this.bounds);
    const sun = new DirectionalLight(0xffffff, 2.2);
    sun.position.set(0.6, -0.9, 1.6);
    this.scene.add(new AmbientLight(0xffffff, 1.1), sun, this.#workspace, this.#live, this.#ghost, this.#refusal);
  }

  setLive(volumes: PlacedVolumes | null, look: "live" | "stale"): void {
    this.#liveVolumes = volumes ?? [];
    replace(
      this.#live,
      this.#liveVolumes.map((v) => shapeObject(v.shape, look)),
    );
    this.#drawGhost();
  }

  setGhost(volumes: PlacedVolumes | null, look: "target" | "requested"): void {
    this.#ghostVolumes = volumes ?? [];
    this.#ghostLook = look;
    this.#drawGhost();
  }

  /** Only the volumes the target puts elsewhere: a ghost laid over the links that stay would tint the whole arm. */
  #drawGhost(): void {
    const moved = this.#ghostVolumes.filter((v, i) => {
      const now = this.#liveVolumes[i];
      return !now || now.link !== v.link || !sameShape(now.shape, v.shape);
    });
    replace(
      this.#ghost,
      moved.map((v) => shapeObject(v.shape, this.#ghostLook)),
    );
  }

  setRefusal(refusal: LastRefusal | null): void {
    const parts: Object3D[] = [];
    if (refusal) {
      for (const shape of [refusal.volume, refusal.other_volume]) if (shape) parts.push(shapeObject(shape, "refusal"));
      parts.push(markerObject(refusal.point, Math.max(0.006, this.bounds.radius / 120)));
    }
    replace(this.#refusal, parts);
  }

  /** Frees what this scene made for itself (the floor grid); the shared shapes stay for other views. */
  dispose(): void {
    this.#workspace.traverse((o) => {
      if ("dispose" in o && typeof o.dispose === "function") (o as { dispose: () => void }).dispose();
    });
    this.scene.clear();
  }
}

/** Within a millimetre everywhere (a ghost that close to the live link adds nothing to see). */
function sameShape(a: ShapeView, b: ShapeView): boolean {
  const flat = (s: ShapeView): number[] =>
    s.kind === "box" ? [...s.center, ...s.axes.flat(), ...s.half] : [...s.a, ...s.b, s.radius];
  const x = flat(a);
  const y = flat(b);
  return a.kind === b.kind && x.length === y.length && x.every((v, i) => Math.abs(v - (y[i] ?? Number.NaN)) < 1e-3);
}

function replace(group: Group, parts: readonly Object3D[]): void {
  group.clear();
  if (parts.length) group.add(...parts);
}

function framedBox(envelope: EnvelopeDescriptionView, firstSeen: PlacedVolumes): Box3 {
  const box = new Box3();
  const k = envelope.keep_in;
  if (k) box.set(vec(k.min), vec(k.max));
  else {
    for (const { shape } of firstSeen) {
      if (shape.kind === "box") box.expandByPoint(vec(shape.center));
      else box.expandByPoint(vec(shape.a)).expandByPoint(vec(shape.b));
    }
    if (box.isEmpty()) box.set(new Vector3(-0.5, -0.5, 0), new Vector3(0.5, 0.5, 1));
    // The arm may swing out to about its own size around where it stands.
    box.expandByScalar(0.5 * box.getSize(new Vector3()).length());
  }
  if (envelope.floor_z !== null) box.expandByPoint(new Vector3(box.min.x, box.min.y, envelope.floor_z));
  return box;
}

export type { Look };
