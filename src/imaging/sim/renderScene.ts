import type { SceneConfig } from "../../config/sections/simulator.js";
import { namedColour } from "./namedColour.js";
import type { TopDownCamera, Vec3 } from "./TopDownCamera.js";

/** An RGBA image, row-major, 4 bytes per pixel. */
export interface RawImage {
  readonly width: number;
  readonly height: number;
  readonly data: Buffer;
}

/** What of the arm the camera sees: its link origins base to tip, and the gripper at the tip. */
export interface ArmView {
  /** Link frame origins along the chain (base frame, m), base first, tool tip last. */
  readonly links: readonly Vec3[];
  /** The tool's own y axis in the base frame: the direction the gripper's fingers open along. */
  readonly fingerAxis: Vec3;
  /** Gripper opening on its 0..1 scale (0 closed); undefined without a gripper. */
  readonly gripper: number | undefined;
}

/** The colour the arm's links are drawn in (nothing else in a scene is drawn in it). */
export const ARM_RGB = [70, 70, 78] as const;
const FINGER_RGB = [25, 25, 25] as const;
const TIP_RGB = [255, 255, 255] as const;
/** Finger gap at gripper 0 and 1 (m), and finger size: a parallel gripper of the SO-101 / UR-hand class. */
const GAP_CLOSED_M = 0.01;
const GAP_OPEN_M = 0.08;
const FINGER_M = 0.014;
const LINK_WIDTH_M = 0.04;

/**
 * The simulated camera's picture: the table, each block as the square its
 * top face makes (exactly where it stands: the blocks are drawn by casting
 * every pixel's ray onto the block-top plane), then the arm as thick
 * segments between its link origins and the gripper's two fingers, all
 * projected through the pinhole, so what stands higher looks bigger and
 * further from the image centre, as it would on a real camera.
 */
export function renderScene(camera: TopDownCamera, scene: SceneConfig | undefined, arm: ArmView | undefined): RawImage {
  const { width, height } = camera;
  const data = Buffer.alloc(width * height * 4);
  const tableZ = scene?.table.z ?? 0;
  const table = namedColour(scene?.table.color ?? "#c8b89a");
  const grid = [table[0] - 25, table[1] - 25, table[2] - 25] as const;
  // Looking straight down, pixel → plane point is affine in (col, row) for each horizontal plane: walk it by increments.
  const onTable = affineOf(camera, tableZ);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const [tx, ty] = onTable(col + 0.5, row + 0.5);
      // A faint 10 cm grid on the table, so a person can read distances off the picture.
      const onGrid = Math.abs(tx * 10 - Math.round(tx * 10)) < 0.012 || Math.abs(ty * 10 - Math.round(ty * 10)) < 0.012;
      put(data, width, col, row, onGrid ? grid : table);
    }
  }
  for (const b of scene?.blocks ?? []) {
    const rgb = namedColour(b.color);
    const side = [rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6] as const;
    const half = b.size / 2;
    const topZ = tableZ + b.height;
    const onTop = affineOf(camera, topZ);
    // Only the pixels the block's eight corners span can show it.
    const corners = [tableZ, topZ].flatMap((z) =>
      [-1, 1].flatMap((sx) => [-1, 1].map((sy) => camera.toPixel([b.x + sx * half, b.y + sy * half, z]))),
    );
    if (corners.some((c) => c === undefined)) continue;
    const cols = corners.map((c) => (c as readonly [number, number])[0]);
    const rows = corners.map((c) => (c as readonly [number, number])[1]);
    const c0 = Math.max(0, Math.floor(Math.min(...cols)));
    const c1 = Math.min(width - 1, Math.ceil(Math.max(...cols)));
    const r0 = Math.max(0, Math.floor(Math.min(...rows)));
    const r1 = Math.min(height - 1, Math.ceil(Math.max(...rows)));
    for (let row = r0; row <= r1; row++) {
      for (let col = c0; col <= c1; col++) {
        // The pixel's ray between the block's top and the table: inside the footprint at the top → top face; anywhere lower → a side.
        const top = onTop(col + 0.5, row + 0.5);
        if (Math.abs(top[0] - b.x) <= half && Math.abs(top[1] - b.y) <= half) put(data, width, col, row, rgb);
        else if (b.height > 0 && segmentHitsSquare(top, onTable(col + 0.5, row + 0.5), b.x, b.y, half))
          put(data, width, col, row, side);
      }
    }
  }
  if (arm) drawArm(data, camera, arm);
  return { width, height, data };
}

/** `camera.fromPixel(·, ·, z)` as an affine map, exact for a camera looking straight down. */
function affineOf(camera: TopDownCamera, z: number): (col: number, row: number) => readonly [number, number] {
  const o = camera.fromPixel(0, 0, z);
  const c = camera.fromPixel(1, 0, z);
  const r = camera.fromPixel(0, 1, z);
  const dc = [c[0] - o[0], c[1] - o[1]] as const;
  const dr = [r[0] - o[0], r[1] - o[1]] as const;
  return (col, row) => [o[0] + dc[0] * col + dr[0] * row, o[1] + dc[1] * col + dr[1] * row];
}

/** Does the segment a→b cross the axis-aligned square of half-size `half` centred at (cx, cy)? (Liang–Barsky clipping.) */
function segmentHitsSquare(
  a: readonly [number, number],
  b: readonly [number, number],
  cx: number,
  cy: number,
  half: number,
): boolean {
  let t0 = 0;
  let t1 = 1;
  const d = [b[0] - a[0], b[1] - a[1]] as const;
  const lo = [cx - half - a[0], cy - half - a[1]] as const;
  const hi = [cx + half - a[0], cy + half - a[1]] as const;
  for (const k of [0, 1] as const) {
    if (Math.abs(d[k]) < 1e-15) {
      if (lo[k] > 0 || hi[k] < 0) return false;
      continue;
    }
    let ta = lo[k] / d[k];
    let tb = hi[k] / d[k];
    if (ta > tb) [ta, tb] = [tb, ta];
    t0 = Math.max(t0, ta);
    t1 = Math.min(t1, tb);
    if (t0 > t1) return false;
  }
  return true;
}

function drawArm(data: Buffer, camera: TopDownCamera, arm: ArmView): void {
  const pixels = arm.links.map((p) => ({ p, px: camera.toPixel(p) }));
  for (let i = 1; i < pixels.length; i++) {
    const a = pixels[i - 1];
    const b = pixels[i];
    if (!a?.px || !b?.px) continue;
    const radius = Math.max(1.5, LINK_WIDTH_M / 2 / camera.metresPerPixel(Math.max(a.p[2], b.p[2])));
    drawSegment(data, camera, a.px, b.px, radius, ARM_RGB);
  }
  const tip = arm.links[arm.links.length - 1];
  if (!tip) return;
  if (arm.gripper !== undefined) {
    const gap = GAP_CLOSED_M + (GAP_OPEN_M - GAP_CLOSED_M) * Math.min(1, Math.max(0, arm.gripper));
    for (const side of [-1, 1]) {
      const offset = (gap / 2 + FINGER_M / 2) * side;
      const finger: Vec3 = [
        tip[0] + arm.fingerAxis[0] * offset,
        tip[1] + arm.fingerAxis[1] * offset,
        tip[2] + arm.fingerAxis[2] * offset,
      ];
      const px = camera.toPixel(finger);
      if (px) drawDisc(data, camera, px, FINGER_M / camera.metresPerPixel(finger[2]), FINGER_RGB);
    }
  }
  const tipPx = camera.toPixel(tip);
  if (tipPx) drawDisc(data, camera, tipPx, 2.5, TIP_RGB);
}

function drawSegment(
  data: Buffer,
  camera: TopDownCamera,
  a: readonly [number, number],
  b: readonly [number, number],
  radius: number,
  rgb: readonly [number, number, number],
): void {
  const minC = Math.max(0, Math.floor(Math.min(a[0], b[0]) - radius));
  const maxC = Math.min(camera.width - 1, Math.ceil(Math.max(a[0], b[0]) + radius));
  const minR = Math.max(0, Math.floor(Math.min(a[1], b[1]) - radius));
  const maxR = Math.min(camera.height - 1, Math.ceil(Math.max(a[1], b[1]) + radius));
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  for (let row = minR; row <= maxR; row++) {
    for (let col = minC; col <= maxC; col++) {
      const px = col + 0.5 - a[0];
      const py = row + 0.5 - a[1];
      const t = len2 === 0 ? 0 : Math.min(1, Math.max(0, (px * dx + py * dy) / len2));
      if (Math.hypot(px - t * dx, py - t * dy) <= radius) put(data, camera.width, col, row, rgb);
    }
  }
}

function drawDisc(
  data: Buffer,
  camera: TopDownCamera,
  c: readonly [number, number],
  radius: number,
  rgb: readonly [number, number, number],
): void {
  drawSegment(data, camera, c, c, radius, rgb);
}

function put(data: Buffer, width: number, col: number, row: number, rgb: readonly [number, number, number]): void {
  const i = (row * width + col) * 4;
  data[i] = Math.max(0, Math.min(255, rgb[0]));
  data[i + 1] = Math.max(0, Math.min(255, rgb[1]));
  data[i + 2] = Math.max(0, Math.min(255, rgb[2]));
  data[i + 3] = 255;
}
