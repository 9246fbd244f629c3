import { describe, expect, it } from "vitest";
import { HttpSnapshotSource } from "../../src/cameras/sources/HttpSnapshotSource.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";

const arm = { joints: [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] };
const square = [
  { image: [100, 100], table: [0.5, 0.2] },
  { image: [100, 900], table: [0.5, -0.2] },
  { image: [900, 900], table: [0.1, -0.2] },
  { image: [900, 100], table: [0.1, 0.2] },
];

function issuesOf(raw: unknown): string {
  try {
    parseConfig(raw, "t");
    return "valid";
  } catch (error) {
    if (isArmbridgeError(error, "ARMB_ERR_CONFIG_INVALID")) return String(error.details.issues);
    throw error;
  }
}

describe("a camera URL whose credentials cannot be decoded is refused at load, naming the camera, never echoing the password", () => {
  it.each([
    [
      "a % in the password (it used to pass, then stop serve with ARMB_ERR_INTERNAL: URI malformed)",
      "http://cam:50%off@10.0.0.5/snap.jpg",
      /camera lab's URL has a password with a %/,
    ],
    ["a % in the user name", "http://ad%min:pw@10.0.0.5/snap.jpg", /camera lab's URL has a user name with a %/],
  ])("%s", (_what, url, message) => {
    const issues = issuesOf({ arm, cameras: [{ name: "lab", source: { http: url } }] });
    expect(issues).toMatch(message);
    expect(issues).toMatch(/%25/);
    expect(issues).not.toContain("50%off");
    expect(issues).not.toContain("ad%min");
  });

  it("an escaped % (%25) is the password it encodes", () => {
    const cfg = parseConfig({
      arm,
      cameras: [{ name: "lab", source: { http: "http://cam:50%25off@10.0.0.5/snap.jpg" } }],
    });
    expect(cfg.cameras[0]!.source).toMatchObject({ kind: "http" });
  });

  it("a source built in code with such a URL is a coded error naming the camera, not an internal one", () => {
    let caught: unknown;
    try {
      new HttpSnapshotSource({ camera: "lab", url: "http://cam:50%off@10.0.0.5/snap.jpg", timeoutMs: 1000 });
    } catch (error) {
      caught = error;
    }
    expect(isArmbridgeError(caught, "ARMB_ERR_CONFIG_INVALID")).toBe(true);
    expect((caught as Error).message).toContain("camera lab");
    expect((caught as Error).message).not.toContain("50%off");
  });
});

describe("config cameras: and scene:", () => {
  it("no cameras by default; a calibrated camera gets its homography and residual at load", () => {
    expect(parseConfig({ arm }).cameras).toEqual([]);
    const cfg = parseConfig({
      arm,
      cameras: [
        { name: "top", source: { http: "http://10.0.0.5:8080/?action=snapshot" }, table: { z: 0, points: square } },
      ],
    });
    const cam = cfg.cameras[0]!;
    expect(cam.source).toEqual({ kind: "http", url: "http://10.0.0.5:8080/?action=snapshot", timeoutMs: 2000 });
    expect(cam.staleAfterMs).toBe(2000);
    expect(cam.attachToResults).toBe(false);
    expect(cam.table?.residualMm.max).toBeLessThan(1e-6);
  });

  it.each([
    ["fewer than 4 points", { z: 0, points: square.slice(0, 3) }, /at least 4/],
    [
      "collinear image points",
      { z: 0, points: square.map((p, i) => ({ ...p, image: [100 * i, 100 * i] })) },
      /one line/,
    ],
    [
      "three of four collinear",
      {
        z: 0,
        points: [square[0], { ...square[1], image: [500, 500] }, { ...square[2], image: [900, 900] }, square[3]],
      },
      /collinear|determine/,
    ],
    ["a point outside 0–1000", { z: 0, points: [{ ...square[0], image: [1100, 0] }, ...square.slice(1)] }, /1000/],
  ])("a degenerate calibration is refused at load (ARMB_ERR_CONFIG_INVALID): %s", (_name, table, message) => {
    expect(issuesOf({ arm, cameras: [{ name: "top", source: "sim", table }] })).toMatch(message);
  });

  it.each([
    [
      "duplicate camera names",
      {
        cameras: [
          { name: "a", source: "sim" },
          { name: "a", source: "sim" },
        ],
      },
      /duplicate camera a/,
    ],
    [
      "sim: on a non-sim source",
      { cameras: [{ name: "a", source: { file: "/tmp/x.jpg" }, sim: {} }] },
      /only to source: sim/,
    ],
    ["an unknown source kind", { cameras: [{ name: "a", source: { rtsp: "rtsp://x" } }] }, /source/],
    ["a non-http URL", { cameras: [{ name: "a", source: { http: "ftp://x/y.jpg" } }] }, /http/],
    [
      "duplicate block names",
      {
        scene: {
          blocks: [
            { name: "b", color: "red", x: 0, y: 0, size: 0.03 },
            { name: "b", color: "blue", x: 0.1, y: 0, size: 0.03 },
          ],
        },
      },
      /duplicate block b/,
    ],
    [
      "a colour that is neither a name nor #rrggbb",
      { scene: { blocks: [{ name: "b", color: "teal-ish", x: 0, y: 0, size: 0.03 }] } },
      /colour/,
    ],
  ])("refused with a clear issue: %s", (_name, extra, message) => {
    expect(issuesOf({ arm, ...extra })).toMatch(message);
  });
});
