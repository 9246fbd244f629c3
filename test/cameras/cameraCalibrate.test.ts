import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { applyHomography, fitHomography } from "../../src/geometry/fitHomography.js";
import { armKinematicsOf, jointVectorOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { solveIk } from "../../src/kinematics/solveIk.js";
import { runCli as runInProcess } from "../../src/surfaces/cli/runCli.js";
import { captureIo } from "../support/captureIo.js";
import { centroidOf } from "../support/centroidOf.js";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

const built = existsSync(CLI) && existsSync(SIM);
const TOKEN = "camera-calibrate-test-token";
/**
 * Tip height of every mark, and the test's table: the shipped table (z −0.4) raised 10 cm to it. On the
 * shipped table the wrist and finger volumes of the position-only IK poses would come down through it
 * (the shipped floor_z, −0.39) — a contact the envelope rightly refuses — and the tip must touch the
 * table at each mark (calibrate refuses marks off the scene's table plane).
 */
const MARK_Z = -0.3;
/** Four marks spread over the camera's view of the table, and a fifth held out of the fit to judge it. */
const MARKS: readonly (readonly [number, number])[] = [
  [-0.28, 0.22],
  [-0.28, -0.22],
  [-0.52, 0.2],
  [-0.52, -0.2],
];
const HELD_OUT: readonly [number, number] = [-0.42, 0.05];

describe.skipIf(!built)(
  "armbridge camera calibrate on the simulated overhead camera (needs dist: npm run build)",
  () => {
    let dir = "";
    let config = "";
    let shippedTable = "";
    let sim: ReadyProcess | undefined;
    let serve: ReadyProcess | undefined;
    let url = "";

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-camcal-"));
      // The default arm with its shipped envelope, its overhead camera uncalibrated and lossless (PNG: pixels as drawn).
      const raw = parse(readFileSync("config/sim-arm.yaml", "utf8")) as {
        arm: { urdf: string };
        cameras: { table?: unknown; sim: { format: string } }[];
        scene: { table: { z: number } };
      };
      raw.arm.urdf = resolve("config", raw.arm.urdf);
      delete raw.cameras[0]!.table;
      raw.cameras[0]!.sim.format = "png";
      // The same arm and camera with the shipped table, 10 cm below the marks.
      shippedTable = join(dir, "arm-shipped-table.yaml");
      writeFileSync(shippedTable, stringify(raw));
      raw.scene.table.z = MARK_Z;
      config = join(dir, "arm.yaml");
      writeFileSync(config, stringify(raw));
      sim = await startReady(SIM, ["--link", "tcp", "--config", config, "--seed", "5"]);
      serve = await startReady(CLI, [
        "serve",
        "--config",
        config,
        "--serial",
        String(sim.ready.link),
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--data",
        join(dir, "data"),
      ]);
      url = String(serve.ready.http);
    }, 60_000);

    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      rmSync(dir, { recursive: true, force: true });
    });

    const env = (): NodeJS.ProcessEnv => ({ ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: TOKEN });
    interface Answer {
      response: { output: { status: string } };
      parts: { inlineData: { data: string } }[];
    }
    const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
      const r = await fetch(`${url}/v1/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ calls: [{ id: `t-${Math.random()}`, name, args }] }),
      });
      return ((await r.json()) as { responses: Answer[] }).responses[0]!;
    };

    /** A joint pose putting the tool tip at (x, y, MARK_Z), by IK from the home pose. */
    function poseFor(x: number, y: number): Record<string, number> {
      const cfg = loadConfig(config);
      const kin = armKinematicsOf(cfg)!;
      const home = jointVectorOf(kin, cfg.arm.namedPoses.home)!;
      const ik = solveIk(kin.chain, { position: [x, y, MARK_Z] }, home);
      expect(ik.ok, `IK for (${x}, ${y})`).toBe(true);
      return Object.fromEntries(kin.jointNames.map((n, k) => [n, Number(ik.q[k]!.toFixed(5))]));
    }

    /** Where the drawn tip is in the camera's picture at that pose (the white disc's centre), in pixels. */
    async function tipPixel(pose: Record<string, number>): Promise<[number, number]> {
      const moved = await call("move_joints", { positions: pose, speed: 0.5 });
      expect(moved.response.output.status).toBe("done");
      const shot = await call("get_camera_image", { camera: "overhead" });
      const image = decodeImage(Buffer.from(shot.parts[0]!.inlineData.data, "base64"));
      const { point } = centroidOf(image, [255, 255, 255], 30);
      return [(point[1] / 1000) * image.width, (point[0] / 1000) * image.height];
    }

    it("fits the table mapping from FK of four arm poses and their pixels in the simulated image: residual under 3 mm, written into the config, and a fifth mark held out maps within 3 mm", async () => {
      const poses = MARKS.map(([x, y]) => poseFor(x, y));
      const pixels: [number, number][] = [];
      for (const p of poses) pixels.push(await tipPixel(p));
      const args = ["camera", "calibrate", "--camera", "overhead", "--config", config, "--write", "--json"];
      for (const [i, p] of poses.entries())
        args.push(
          "--pose",
          Object.entries(p)
            .map(([n, v]) => `${n}=${v}`)
            .join(","),
          "--pixel",
          pixels[i]!.map((v) => v.toFixed(2)).join(","),
        );
      const r = await runCli(args, env());
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as {
        residual: { rms_mm: number; max_mm: number };
        table: { z: number; points: unknown[] };
      };
      expect(out.residual.max_mm).toBeLessThan(3);
      expect(out.table.points).toHaveLength(4);
      expect(out.table.z).toBeCloseTo(MARK_Z, 3);

      // The config now carries it, and it loads (the fit is checked again at load).
      const calibrated = loadConfig(config).cameras[0]!.table!;
      expect(calibrated.residualMm.max).toBeLessThan(3);

      // Judged on a mark the fit never saw: its pixel maps to within 3 mm of where FK puts the tip.
      const held = poseFor(...HELD_OUT);
      const [col, row] = await tipPixel(held);
      const kin = armKinematicsOf(loadConfig(config))!;
      const tip = positionOf(kin.chain.tip(jointVectorOf(kin, held)!));
      const mapped = applyHomography(calibrated.homography, [(col / 640) * 1000, (row / 480) * 1000])!;
      expect(Math.hypot(mapped[0] - tip[0], mapped[1] - tip[1]) * 1000).toBeLessThan(3);
    }, 120_000);

    it("interactively: Enter at each mark saves the camera's frame beside the config, the pixel typed from that image; fewer than four marks are refused until more come; the printed table maps a held-out mark within 3 mm", async () => {
      const io = captureIo(env());
      const running = runInProcess(["camera", "calibrate", "--camera", "overhead", "--config", config], io);
      const marks = [...MARKS, [-0.4, -0.1] as const];
      for (const [i, [x, y]] of marks.entries()) {
        // The operator jogs the tip onto the mark (here through serve), then presses Enter.
        const moved = await call("move_joints", { positions: poseFor(x, y), speed: 0.5 });
        expect(moved.response.output.status).toBe("done");
        await io.waitFor(new RegExp(`mark ${i + 1}: put the tool tip`));
        if (i === 2) {
          io.stdin.write("done\n");
          await io.waitFor(/4 marks at least, 2 so far/);
        }
        io.stdin.write("\n");
        const prompt = await io.waitFor(new RegExp(`view is in (\\S+-mark-${i + 1}\\.png)`));
        const file = /view is in (\S+\.png)/.exec(prompt)![1]!;
        const image = decodeImage(readFileSync(file));
        const { point } = centroidOf(image, [255, 255, 255], 30);
        io.stdin.write(
          `${((point[1] / 1000) * image.width).toFixed(1)},${((point[0] / 1000) * image.height).toFixed(1)}\n`,
        );
      }
      await io.waitFor(/mark 6: put the tool tip/);
      io.stdin.write("done\n");
      expect(await running, io.err()).toBe(0);
      expect(io.err()).toMatch(/fit: residual [\d.]+ mm RMS, [\d.]+ mm worst, over 5 marks/);
      const table = JSON.parse(io.out().trim().split("\n").pop()!) as {
        z: number;
        points: { image: [number, number]; table: [number, number] }[];
      };
      expect(table.points).toHaveLength(5);
      const fit = fitHomography(table.points.map((p) => ({ from: [p.image[1], p.image[0]], to: p.table })));
      if (!fit.ok) throw new Error(fit.reason);
      expect(fit.maxResidual * 1000).toBeLessThan(3);
      const held = poseFor(...HELD_OUT);
      const [col, row] = await tipPixel(held);
      const kin = armKinematicsOf(loadConfig(config))!;
      const tip = positionOf(kin.chain.tip(jointVectorOf(kin, held)!));
      const mapped = applyHomography(fit.h, [(col / 640) * 1000, (row / 480) * 1000])!;
      expect(Math.hypot(mapped[0] - tip[0], mapped[1] - tip[1]) * 1000).toBeLessThan(3);
    }, 120_000);

    const calibrateArgs = (
      file: string,
      poses: readonly Record<string, number>[],
      pixels: readonly (readonly [number, number])[],
    ): string[] => {
      const args = ["camera", "calibrate", "--camera", "overhead", "--config", file, "--json"];
      for (const [i, p] of poses.entries())
        args.push(
          "--pose",
          Object.entries(p)
            .map(([n, v]) => `${n}=${v}`)
            .join(","),
          "--pixel",
          pixels[i]!.map((v) => v.toFixed(2)).join(","),
        );
      return args;
    };

    it("refuses marks off the table plane: tips 10 cm above the scene's table are not fitted, and nothing is written", async () => {
      const poses = MARKS.map(([x, y]) => poseFor(x, y));
      const pixels: [number, number][] = [];
      for (const p of poses) pixels.push(await tipPixel(p));
      const before = readFileSync(shippedTable, "utf8");
      const r = await runCli([...calibrateArgs(shippedTable, poses, pixels), "--write"], env());
      // Refused as bad input (exit 2), naming no fit and writing nothing.
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(readFileSync(shippedTable, "utf8")).toBe(before);
    }, 120_000);

    it("checks the fit on marks it did not use: the mark inside the others is predicted by them within 3 mm; its pixel taken off the tip is found, more plainly than by the residual", async () => {
      const poses = [...MARKS, HELD_OUT].map(([x, y]) => poseFor(x, y));
      const pixels: [number, number][] = [];
      for (const p of poses) pixels.push(await tipPixel(p));
      type Out = { residual: { max_mm: number }; holdout: { rms_mm: number; max_mm: number; marks: number } | null };
      const good = await runCli(calibrateArgs(config, poses, pixels), env());
      expect(good.code, good.stderr).toBe(0);
      const goodOut = JSON.parse(good.stdout.trim().split("\n").pop()!) as Out;
      expect(goodOut.holdout?.marks).toBe(1);
      expect(goodOut.holdout?.max_mm).toBeLessThan(3);
      // The middle mark's pixel 12 px off the drawn tip (where the wrist shows above it).
      const wrong = pixels.map((p, i) => (i === pixels.length - 1 ? ([p[0] + 12, p[1] - 6] as [number, number]) : p));
      const bad = await runCli(calibrateArgs(config, poses, wrong), env());
      expect(bad.code, bad.stderr).toBe(0);
      const badOut = JSON.parse(bad.stdout.trim().split("\n").pop()!) as Out;
      expect(badOut.holdout?.max_mm).toBeGreaterThan(10);
      // The check sees it larger than the fit's own residual, which the bad mark pulls toward itself.
      expect(badOut.holdout!.max_mm).toBeGreaterThan(badOut.residual.max_mm);
    }, 120_000);
  },
);
