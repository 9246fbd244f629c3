import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { fromXyzRpy } from "../../src/kinematics/rigidTransform.js";
import { parseUrdfCollisions } from "../../src/kinematics/volumes/parseUrdfCollisions.js";
import { applyTransform, type Vec3, type VolumeShape } from "../../src/kinematics/volumes/VolumeShape.js";

/**
 * Link volumes from URDF `<collision>` geometry and config `link_volumes`:
 * a two-joint test arm in a temporary description package, with every shape
 * URDF has, meshes written here (binary STL, ASCII STL, OBJ), a package://
 * path, and a two-finger gripper outside the chain.
 */
const dir = mkdtempSync(join(tmpdir(), "armbridge-bodies-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pkg = join(dir, "test_description");
mkdirSync(join(pkg, "meshes"), { recursive: true });
mkdirSync(join(pkg, "urdf"), { recursive: true });

/** A box's 12 triangles, as a mesh. */
function boxTriangles(min: Vec3, max: Vec3): Vec3[][] {
  const c = (i: number): Vec3 => [i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]];
  const faces = [
    [0, 1, 3, 2],
    [4, 6, 7, 5],
    [0, 4, 5, 1],
    [2, 3, 7, 6],
    [0, 2, 6, 4],
    [1, 5, 7, 3],
  ];
  return faces.flatMap(([a, b, d, e]) => [
    [c(a!), c(b!), c(d!)],
    [c(a!), c(d!), c(e!)],
  ]);
}

function binaryStl(tris: Vec3[][]): Buffer {
  const buf = Buffer.alloc(84 + 50 * tris.length);
  buf.write("solid looks like ascii but is binary", 0, "latin1");
  buf.writeUInt32LE(tris.length, 80);
  tris.forEach((t, i) =>
    t.forEach((v, k) => v.forEach((x, a) => buf.writeFloatLE(x, 84 + 50 * i + 12 + 12 * k + 4 * a))),
  );
  return buf;
}

const forearmMesh = boxTriangles([0, -0.02, -0.03], [0.3, 0.02, 0.03]);
writeFileSync(join(pkg, "meshes", "forearm.stl"), binaryStl(forearmMesh));
writeFileSync(
  join(pkg, "meshes", "hand.stl"),
  `solid hand\n${boxTriangles([-0.01, -0.01, 0], [0.01, 0.01, 0.05])
    .map(
      (t) =>
        `facet normal 0 0 0\n outer loop\n${t.map((v) => `  vertex ${v.join(" ")}`).join("\n")}\n endloop\nendfacet`,
    )
    .join("\n")}\nendsolid hand\n`,
);
writeFileSync(join(pkg, "meshes", "pad.obj"), "# a pad\nv 0 0 0\nv 0.01 0 0\nv 0 0.01 0\nv 0 0 0.01\nf 1 2 3\n");

const URDF = `<?xml version="1.0"?>
<robot name="test_arm">
  <link name="base_link">
    <collision><origin xyz="0 0 0.05"/><geometry><cylinder radius="0.06" length="0.1"/></geometry></collision>
  </link>
  <link name="upper_link">
    <collision><origin xyz="0.15 0 0" rpy="0 1.5707963267948966 0"/><geometry><capsule radius="0.04" length="0.3"/></geometry></collision>
    <collision><origin xyz="0 0 0"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <link name="fore_link">
    <collision><geometry><mesh filename="package://test_description/meshes/forearm.stl" scale="1 1 1"/></geometry></collision>
  </link>
  <link name="hand_link">
    <collision><origin xyz="0 0 0.01"/><geometry><mesh filename="../meshes/hand.stl"/></geometry></collision>
    <collision><origin xyz="0 0 0.06"/><geometry><box size="0.04 0.06 0.02"/></geometry></collision>
  </link>
  <link name="left_finger"><collision><origin xyz="0 0.005 0.02"/><geometry><box size="0.01 0.01 0.04"/></geometry></collision></link>
  <link name="right_finger"><collision><origin xyz="0 -0.005 0.02"/><geometry><mesh filename="../meshes/pad.obj" scale="2 2 2"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base_link"/><child link="upper_link"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/><limit lower="-2" upper="2"/></joint>
  <joint name="j2" type="revolute"><parent link="upper_link"/><child link="fore_link"/><origin xyz="0.3 0 0"/><axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5"/></joint>
  <joint name="wrist_fixed" type="fixed"><parent link="fore_link"/><child link="hand_link"/><origin xyz="0.3 0 0"/></joint>
  <joint name="left" type="prismatic"><parent link="hand_link"/><child link="left_finger"/><origin xyz="0 0 0.07"/><axis xyz="0 1 0"/><limit lower="0" upper="0.03"/></joint>
  <joint name="right" type="prismatic"><parent link="hand_link"/><child link="right_finger"/><origin xyz="0 0 0.07"/><axis xyz="0 -1 0"/><limit lower="0" upper="0.03"/></joint>
</robot>`;
const urdfPath = join(pkg, "urdf", "arm.urdf");
writeFileSync(urdfPath, URDF);

function config(extra: Record<string, unknown> = {}): ReturnType<typeof parseConfig> {
  return parseConfig(
    {
      arm: {
        joints: [
          { name: "j1", min: -2, max: 2, max_velocity: 1, max_acceleration: 4 },
          { name: "j2", min: -2.5, max: 2.5, max_velocity: 1, max_acceleration: 4 },
        ],
        urdf: urdfPath,
        base_link: "base_link",
        tip_link: "hand_link",
      },
      workspace: { floor_z: -1, allowed_contacts: [["left_finger", "right_finger"]] },
      ...extra,
    },
    "bodies test",
  );
}

function inside(s: VolumeShape, p: Vec3): boolean {
  if (s.kind === "capsule") {
    const d = [s.b[0] - s.a[0], s.b[1] - s.a[1], s.b[2] - s.a[2]] as const;
    const l2 = d[0] ** 2 + d[1] ** 2 + d[2] ** 2;
    const t =
      l2 > 0
        ? Math.max(0, Math.min(1, ((p[0] - s.a[0]) * d[0] + (p[1] - s.a[1]) * d[1] + (p[2] - s.a[2]) * d[2]) / l2))
        : 0;
    return Math.hypot(p[0] - s.a[0] - t * d[0], p[1] - s.a[1] - t * d[1], p[2] - s.a[2] - t * d[2]) <= s.radius + 1e-9;
  }
  return [0, 1, 2].every(
    (i) =>
      Math.abs(
        (p[0] - s.center[0]) * s.axes[i]![0] +
          (p[1] - s.center[1]) * s.axes[i]![1] +
          (p[2] - s.center[2]) * s.axes[i]![2],
      ) <=
      s.half[i]! + 1e-9,
  );
}

describe("link volumes from URDF <collision> geometry", () => {
  it("reads every kind of geometry, with its origin", () => {
    const kinds = parseUrdfCollisions(URDF, "t").map((c) => `${c.link}:${c.geometry.kind}`);
    expect(kinds).toEqual([
      "base_link:cylinder",
      "upper_link:capsule",
      "upper_link:sphere",
      "fore_link:mesh",
      "hand_link:mesh",
      "hand_link:box",
      "left_finger:box",
      "right_finger:mesh",
    ]);
  });

  it("places each on the chain frame that carries it: capsules round cylinders, boxes as boxes, meshes bounded (package://, relative; binary STL, ASCII STL, OBJ)", () => {
    const kin = armKinematicsOf(config())!;
    const byLink = (l: string) => kin.bodies.volumes.filter((v) => v.link === l);
    const [base] = byLink("base_link");
    expect(base).toMatchObject({ ref: -1, shape: { kind: "capsule", radius: 0.06 } });
    expect(base!.source).toMatch(/cylinder/);
    expect(byLink("upper_link").map((v) => v.ref)).toEqual([0, 0]);
    const [fore] = byLink("fore_link");
    expect(fore!.ref).toBe(1);
    expect(fore!.source).toMatch(
      /mesh package:\/\/test_description\/meshes\/forearm.stl \(bounding box of 36 vertices\)/,
    );
    for (const tri of forearmMesh) for (const v of tri) expect(inside(fore!.shape, v)).toBe(true);
    // The hand hangs on fore_link's frame through a fixed joint: its volumes are carried there, 0.3 m out.
    const hand = byLink("hand_link");
    expect(hand.map((v) => v.ref)).toEqual([1, 1]);
    expect(inside(hand[1]!.shape, [0.3 + 0.02, 0.03, 0.07])).toBe(true);
    expect(inside(hand[1]!.shape, [0.3 + 0.03, 0, 0.06])).toBe(false);
  });

  it("a finger behind a joint outside the chain is bounded over that joint's whole travel", () => {
    const kin = armKinematicsOf(config())!;
    const left = kin.bodies.volumes.find((v) => v.link === "left_finger")!;
    expect(left.swept).toBe(true);
    // Its box's corners at the ends and middle of its travel, in fore_link's frame (hand 0.3 out, finger 0.07 up).
    for (const travel of [0, 0.015, 0.03]) {
      const t = fromXyzRpy([0.3, travel, 0.07], [0, 0, 0]);
      for (const x of [-0.005, 0.005])
        for (const y of [0, 0.01])
          for (const z of [0, 0.04]) expect(inside(left.shape, applyTransform(t, [x, y, z]))).toBe(true);
    }
  });

  it("pairs: adjacent and rigidly joined links are never checked, allowed_contacts neither, the rest are", () => {
    const kin = armKinematicsOf(config())!;
    const why = new Map(kin.bodies.skipped.map((p) => [[...p.links].sort().join("/"), p.why]));
    expect(why.get("base_link/upper_link")).toBe("adjacent");
    expect(why.get("fore_link/hand_link")).toBe("rigid");
    expect(why.get("hand_link/left_finger")).toBe("adjacent");
    expect(why.get("fore_link/left_finger")).toBe("adjacent");
    expect(why.get("left_finger/right_finger")).toBe("allowed_contacts");
    const checked = kin.bodies.pairs.map(([i, j]) =>
      [kin.bodies.volumes[i]!.link, kin.bodies.volumes[j]!.link].sort().join("/"),
    );
    expect(checked).toContain("base_link/fore_link");
    expect(checked).toContain("left_finger/upper_link");
  });

  it("link_volumes replaces a link's URDF geometry; an empty list removes it", () => {
    const kin = armKinematicsOf(
      config({
        link_volumes: {
          fore_link: [{ shape: "capsule", from: [0, 0, 0], to: [0.3, 0, 0], radius: 0.035 }],
          base_link: [],
        },
      }),
    )!;
    expect(kin.bodies.volumes.filter((v) => v.link === "fore_link")).toEqual([
      expect.objectContaining({
        source: "config link_volumes",
        shape: { kind: "capsule", a: [0, 0, 0], b: [0.3, 0, 0], radius: 0.035 },
      }),
    ]);
    expect(kin.bodies.volumes.some((v) => v.link === "base_link")).toBe(false);
  });

  it.each([
    [
      "link_volumes naming a link the URDF does not have",
      { link_volumes: { nope_link: [{ shape: "sphere", radius: 0.1 }] } },
      "ARMB_ERR_URDF_MISMATCH",
      /link_volumes names nope_link/,
    ],
    [
      "allowed_contacts naming a link the URDF does not have",
      { workspace: { floor_z: -1, allowed_contacts: [["fore_link", "ghost"]] } },
      "ARMB_ERR_URDF_MISMATCH",
      /allowed_contacts names ghost/,
    ],
  ])("refuses %s (%s)", (_what, extra, code, message) => {
    try {
      armKinematicsOf(config(extra));
      expect.unreachable("should have thrown");
    } catch (error) {
      expect(isArmbridgeError(error, code as "ARMB_ERR_URDF_MISMATCH")).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("a mesh that cannot be found or read stops the start naming the link and the fix (ARMB_ERR_URDF_INVALID)", () => {
    const missing = join(pkg, "urdf", "missing-mesh.urdf");
    writeFileSync(missing, URDF.replace("../meshes/hand.stl", "../meshes/gone.stl"));
    const bad = join(pkg, "urdf", "bad-mesh.urdf");
    writeFileSync(join(pkg, "meshes", "broken.stl"), "not a mesh");
    writeFileSync(bad, URDF.replace("../meshes/hand.stl", "../meshes/broken.stl"));
    for (const [path, reason] of [
      [missing, /hand_link's collision mesh \.\.\/meshes\/gone\.stl was not found/],
      [bad, /hand_link's collision mesh \.\.\/meshes\/broken\.stl cannot be read/],
    ] as const) {
      const c = config();
      try {
        armKinematicsOf({ ...c, arm: { ...c.arm, urdf: path } });
        expect.unreachable("should have thrown");
      } catch (error) {
        expect(isArmbridgeError(error, "ARMB_ERR_URDF_INVALID")).toBe(true);
        expect((error as Error).message).toMatch(reason);
        expect((error as Error).message).toMatch(/link_volumes/);
      }
    }
  });

  it("malformed geometry is ARMB_ERR_URDF_INVALID naming the link", () => {
    expect(() =>
      parseUrdfCollisions(URDF.replace('radius="0.06" length="0.1"', 'radius="-1" length="0.1"'), "t"),
    ).toThrow(/link base_link <collision> #1 <cylinder> radius is -1/);
    expect(() =>
      parseUrdfCollisions(URDF.replace('<box size="0.04 0.06 0.02"/>', '<box size="0.04 0.06"/>'), "t"),
    ).toThrow(/link hand_link <collision> #2 <box size>/);
  });

  it("config: keep_out zones, allowed_contacts and link_volumes are checked when the config is read", () => {
    const bad = (extra: Record<string, unknown>): string => {
      try {
        config(extra);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(bad({ workspace: { keep_out: [{ name: "a", min: [0, 0, 0], max: [1, -1, 1] }] } })).toMatch(
      /min must be below max/,
    );
    expect(
      bad({
        workspace: {
          keep_out: [
            { name: "a", min: [0, 0, 0], max: [1, 1, 1] },
            { name: "a", center: [0, 0], radius: 1, z: [0, 1] },
          ],
        },
      }),
    ).toMatch(/named twice/);
    expect(bad({ workspace: { keep_out: [{ name: "a", center: [0, 0], radius: 1, z: [1, 0] }] } })).toMatch(
      /bottom below top/,
    );
    expect(bad({ link_volumes: { fore_link: [{ shape: "cone", radius: 1 }] } })).toMatch(/link_volumes/);
    expect(bad({ limits: { max_tool_speed_mps: -1 } })).toMatch(/max_tool_speed_mps/);
  });
});
