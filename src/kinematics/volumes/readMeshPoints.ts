import { extname } from "node:path";
import type { Vec3 } from "./VolumeShape.js";
import { readBoundedFile } from "../../config/files/readBoundedFile.js";

/**
 * The vertices of a mesh file, in the file's units: STL (binary or ASCII)
 * and Wavefront OBJ, the formats URDF collision meshes are written in. Only
 * the vertices matter: a convex bound of them bounds every face. Throws an
 * Error saying what is wrong; the caller names the link and the fix.
 */
export function readMeshPoints(path: string): Vec3[] {
  const data = readBoundedFile(path, "mesh");
  const ext = extname(path).toLowerCase();
  if (ext === ".stl") return stlPoints(data);
  if (ext === ".obj") return objPoints(data.toString("utf8"));
  throw new Error(`${ext || "a file without extension"} is not a mesh format armbridge reads (STL, OBJ)`);
}

function stlPoints(data: Buffer): Vec3[] {
  // A binary STL is an 80-byte header, a triangle count and 50 bytes per triangle. Binary files may
  // also begin with "solid", so the size decides, not the first word.
  if (data.length >= 84) {
    const count = data.readUInt32LE(80);
    if (84 + 50 * count === data.length) {
      const out: Vec3[] = [];
      for (let t = 0; t < count; t++) {
        const o = 84 + 50 * t + 12;
        for (let v = 0; v < 3; v++)
          out.push([data.readFloatLE(o + 12 * v), data.readFloatLE(o + 12 * v + 4), data.readFloatLE(o + 12 * v + 8)]);
      }
      return finite(out);
    }
  }
  const text = data.toString("latin1");
  if (!/^\s*solid/.test(text))
    throw new Error("neither a binary STL (its size does not match its triangle count) nor an ASCII one");
  const out: Vec3[] = [];
  for (const m of text.matchAll(/vertex\s+(\S+)\s+(\S+)\s+(\S+)/g))
    out.push([Number(m[1]), Number(m[2]), Number(m[3])]);
  return finite(out);
}

function objPoints(text: string): Vec3[] {
  const out: Vec3[] = [];
  for (const m of text.matchAll(/^v\s+(\S+)\s+(\S+)\s+(\S+)/gm)) out.push([Number(m[1]), Number(m[2]), Number(m[3])]);
  return finite(out);
}

function finite(points: Vec3[]): Vec3[] {
  if (points.length === 0) throw new Error("it has no vertices");
  if (points.some((p) => !p.every(Number.isFinite))) throw new Error("it has a vertex that is not a finite number");
  return points;
}
