import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, ROOT, runCli } from "./processes.js";

// These spawn the built CLI; `npm test` builds first (pretest).
const built = existsSync(CLI);
if (!built) console.warn(`skipping serve config-check tests: ${CLI} is missing; run \`npm run build\` first`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "armbridge-serve-config-"));
  mkdirSync(join(dir, "urdf"));
  copyFileSync(join(ROOT, "config", "urdf", "so101.urdf"), join(dir, "urdf", "so101.urdf"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of config/so101.yaml in `dir`, edited; returns its path. */
function so101(edit: (raw: Record<string, Record<string, unknown>>) => void): string {
  const raw = parse(readFileSync(join(ROOT, "config", "so101.yaml"), "utf8")) as Record<
    string,
    Record<string, unknown>
  >;
  edit(raw);
  const path = join(dir, "so101.yaml");
  writeFileSync(path, stringify(raw));
  return path;
}

// No simulator is started: a config serve refuses must stop it before any link is opened.
const serve = (config: string) =>
  runCli([
    "serve",
    "--config",
    config,
    "--serial",
    "tcp://127.0.0.1:9",
    "--http",
    "127.0.0.1:0",
    "--token",
    "t",
    "--data",
    join(dir, "data"),
  ]);

describe.skipIf(!built)(
  "armbridge serve refuses a config whose merged sources fail its checks (needs dist: npm run build)",
  () => {
    it("a calibration giving shoulder_pan and shoulder_lift both id 1: exit 1, ARMB_ERR_CONFIG_INVALID naming both joints and the file (serve used to start and move the wrong joint)", async () => {
      const motor = (id: number, range_min = 100, range_max = 4000) => ({
        id,
        drive_mode: 0,
        homing_offset: 0,
        range_min,
        range_max,
      });
      writeFileSync(
        join(dir, "cal.json"),
        JSON.stringify({
          shoulder_pan: motor(1),
          shoulder_lift: motor(1),
          elbow_flex: motor(3),
          wrist_flex: motor(4),
          wrist_roll: motor(5),
          gripper: motor(6, 2000, 3000),
        }),
      );
      const r = await serve(so101((raw) => (raw.bus!.calibration = "cal.json")));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("ARMB_ERR_CONFIG_INVALID");
      expect(r.stderr).toContain(
        "cal.json: shoulder_lift.id: servo id 1 is used by both shoulder_pan and shoulder_lift",
      );
      expect(r.stderr).not.toContain('"ready"');
    });

    it("a camera URL with a % in its password: exit 1, ARMB_ERR_CONFIG_INVALID naming the camera, the password never printed (it used to exit ARMB_ERR_INTERNAL: URI malformed)", async () => {
      const r = await serve(
        so101(
          (raw) =>
            ((raw as Record<string, unknown>).cameras = [
              { name: "bench_cam", source: { http: "http://cam:50%off@127.0.0.1:9/snapshot.jpg" } },
            ]),
        ),
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("ARMB_ERR_CONFIG_INVALID");
      expect(r.stderr).toContain("camera bench_cam");
      expect(r.stderr).not.toContain("ARMB_ERR_INTERNAL");
      expect(r.stderr).not.toContain("50%off");
    });
  },
);
