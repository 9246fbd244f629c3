import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { loadConfig } from "../../../config/loadConfig.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "../apiClient.js";
import { LineReader } from "../calibrate/LineReader.js";
import { refuseShippedConfig } from "../calibrate/pointConfigAt.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { parseCommandFlags } from "../../runtime/parseCommandFlags.js";
import { BridgeArm } from "./BridgeArm.js";
import { fitTouchOff } from "./fitTouchOff.js";
import { writeTableCalibration } from "./writeTableCalibration.js";

export const CAMERA_HELP = `Usage: armbridge camera calibrate --camera NAME --config FILE [--pose J=RAD,… --pixel COL,ROW]... [--speed S] [--table-z Z] [--write] [--json] [--url URL] [--token T]

Touch-off calibration of a camera's table mapping (docs/cameras.md), through a
running \`armbridge serve\` of FILE's arm: the tool tip is put on four or more marks
on the table; at each, the tip's position comes from forward kinematics of the
joints the arm reports (get_arm_state's end_effector), and the mark's pixel from
you. The homography is fitted, its residual reported in mm on the table, each mark
checked against a fit of the others (five marks or more), and with
--write the camera's table.points and table.z are written into FILE.

Interactive (no --pose): for each mark, jog the tip onto it (armbridge call
move_joints …, the console, or by hand), press Enter; a frame is saved beside FILE;
type the mark's pixel as COL,ROW in that image. Type "done" after four or more.
Non-interactive: one --pose and one --pixel per mark, in order.

Flags:
  --camera NAME          the camera to calibrate (one of the config's cameras)
  --config FILE          the config serve runs, whose camera is calibrated
  --pose J=RAD,J=RAD,…   a mark: the arm is moved there (move_joints, --speed) and waits done (repeat per mark)
  --pixel COL,ROW        where that mark's tip is in the camera's image, in pixels (repeat per mark)
  --speed S              speed of those moves (default 0.3)
  --table-z Z            the table's height in the base frame (default: the config's scene table,
                         else the mean height of the tips); a tip more than 5 mm off it is refused
                         (the tip must touch the table)
  --write                write table.points and table.z into FILE (copy a shipped config first)
  --json                 the fit and the points as JSON on stdout
${CLIENT_FLAGS_HELP}`;

export const CAMERA_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  camera: { type: "string" },
  config: { type: "string" },
  pose: { type: "string", multiple: true },
  pixel: { type: "string", multiple: true },
  speed: { type: "string" },
  "table-z": { type: "string" },
  write: { type: "boolean" },
  json: { type: "boolean" },
} as const;

const MIN_POINTS = 4;
/** A mark mapped this far off by the fit of the others is worth a warning: its pixel or its tip is wrong. */
const HOLDOUT_WARN_MM = 3;

/** A mark: where the tool tip was, and the pixel it showed at in a frame of `size`. */
interface Mark {
  readonly tip: readonly [number, number, number];
  readonly pixel: readonly [number, number];
  readonly size: readonly [number, number];
}

/** What `camera calibrate` was asked, checked before the arm is reached. */
interface CameraRequest {
  readonly values: ReturnType<typeof parseCommandFlags<typeof CAMERA_FLAGS>>["values"];
  readonly cameraName: string;
  readonly configPath: string;
  readonly config: ReturnType<typeof loadConfig>;
  readonly poses: readonly Record<string, number>[];
  readonly pixels: readonly (readonly [number, number])[];
  readonly speed: number;
  readonly tableZ: number | undefined;
}

/** `armbridge camera calibrate`: marks from the flags or from a person at the arm, a fit, then the table printed or written. */
export async function cameraCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const request = cameraRequestOf(argv);
  const arm = new BridgeArm(clientFromFlags(request.values, io, "api", "long"));
  const say = (text: string): void => void io.stderr.write(text + "\n");
  const marks =
    request.poses.length > 0 ? await marksOfPoses(arm, request, say) : await marksOfOperator(arm, request, io, say);
  reportFit(request, marks, io, say);
  return 0;
}

function cameraRequestOf(argv: readonly string[]): CameraRequest {
  const [sub, ...rest] = argv;
  if (sub !== "calibrate")
    throw cliUsageError(
      sub === undefined
        ? "camera needs a subcommand: calibrate"
        : `unknown camera subcommand ${JSON.stringify(sub)}: calibrate`,
    );
  const { values, positionals } = parseCommandFlags(rest, CAMERA_FLAGS);
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const cameraName = values.camera;
  if (!cameraName) throw cliUsageError("--camera NAME is required");
  if (!values.config)
    throw cliUsageError("--config FILE is required: the config serve runs, whose camera is calibrated");
  const configPath = values.config;
  const config = loadConfig(configPath);
  const camera = config.cameras.find((c) => c.name === cameraName);
  if (!camera)
    throw cliUsageError(
      `${configPath} has no camera ${JSON.stringify(cameraName)} (cameras: ${config.cameras.map((c) => c.name).join(", ") || "none"})`,
    );
  if (values.write) refuseShippedConfig(configPath);
  const poses = (values.pose ?? []).map(parsePose);
  const pixels = (values.pixel ?? []).map(parsePixel);
  if (poses.length !== pixels.length)
    throw cliUsageError(`give one --pixel per --pose (${poses.length} poses, ${pixels.length} pixels)`);
  if (poses.length > 0 && poses.length < MIN_POINTS)
    throw cliUsageError(`a calibration needs at least ${MIN_POINTS} marks (${poses.length} given)`);
  const speed = values.speed === undefined ? 0.3 : Number(values.speed);
  if (!(speed > 0 && speed <= 1))
    throw cliUsageError(`--speed must be in (0, 1] (got ${JSON.stringify(values.speed)})`);
  const tableZ = values["table-z"] === undefined ? undefined : Number(values["table-z"]);
  if (tableZ !== undefined && !Number.isFinite(tableZ))
    throw cliUsageError(`--table-z must be a number (got ${JSON.stringify(values["table-z"])})`);
  return { values, cameraName, configPath, config, poses, pixels, speed, tableZ };
}

/** --pose/--pixel pairs: the arm goes to each pose, and the tip there is paired with the pixel given. */
async function marksOfPoses(arm: BridgeArm, request: CameraRequest, say: (text: string) => void): Promise<Mark[]> {
  const { poses, pixels, speed, cameraName } = request;
  const marks: Mark[] = [];
  for (const [i, pose] of poses.entries()) {
    await arm.moveJoints(pose, speed);
    const tip = await arm.tip();
    const frame = await arm.frame(cameraName);
    marks.push({ tip, pixel: pixels[i] ?? [0, 0], size: [frame.width, frame.height] });
    say(
      `mark ${i + 1}: tip at (${tip.map((v) => v.toFixed(4)).join(", ")}) m, pixel (${(pixels[i] ?? []).join(", ")}) of ${frame.width}×${frame.height}`,
    );
  }
  return marks;
}

/** A person at the arm: the tip on a mark, Enter, then the mark's pixel in the saved frame; "done" after enough. */
async function marksOfOperator(
  arm: BridgeArm,
  request: CameraRequest,
  io: CliIo,
  say: (text: string) => void,
): Promise<Mark[]> {
  const { cameraName, configPath } = request;
  const marks: Mark[] = [];
  const lines = new LineReader(io.stdin);
  try {
    for (;;) {
      // Numbered by the marks taken: a "done" refused for too few marks does not skip a number.
      const i = marks.length + 1;
      say(
        `mark ${i}: put the tool tip on a mark on the table, then press Enter${i > MIN_POINTS ? ' (or type "done")' : ""}.`,
      );
      const line = await lines.next();
      if (line === undefined)
        throw cliUsageError(
          "stdin closed before the marks were given (give --pose/--pixel pairs to run without a terminal)",
        );
      if (line.trim().toLowerCase() === "done") {
        if (marks.length >= MIN_POINTS) break;
        say(`${MIN_POINTS} marks at least, ${marks.length} so far`);
        continue;
      }
      const tip = await arm.tip();
      const frame = await arm.frame(cameraName);
      const file = join(
        dirname(resolve(configPath)),
        `${cameraName}-mark-${i}.${frame.mimeType === "image/png" ? "png" : "jpg"}`,
      );
      writeFileSync(file, frame.bytes);
      say(
        `tip at (${tip.map((v) => v.toFixed(4)).join(", ")}) m. The camera's view is in ${file} (${frame.width}×${frame.height}): type the mark's pixel as COL,ROW.`,
      );
      marks.push({ tip, pixel: await pixelOf(lines, say), size: [frame.width, frame.height] });
    }
  } finally {
    lines.close();
  }
  return marks;
}

/** COL,ROW typed by the person, asked again until it reads. */
async function pixelOf(lines: LineReader, say: (text: string) => void): Promise<readonly [number, number]> {
  for (;;) {
    const answer = await lines.next();
    if (answer === undefined) throw cliUsageError("stdin closed before the pixel was given");
    try {
      return parsePixel(answer.trim());
    } catch {
      say("COL,ROW, e.g. 312,208");
    }
  }
}

/** The fit and its check said on stderr; the table printed, or written into the config (--write), and --json's line. */
function reportFit(request: CameraRequest, marks: readonly Mark[], io: CliIo, say: (text: string) => void): void {
  const { values, cameraName, configPath, config, tableZ } = request;
  const { z, points, residual, holdout } = fitTouchOff(marks, tableZ ?? config.scene?.table.z);
  say(
    `fit: residual ${residual.rms_mm} mm RMS, ${residual.max_mm} mm worst, over ${points.length} marks at table z ${z.toFixed(4)} m`,
  );
  if (holdout) {
    say(
      `check: ${holdout.marks} mark(s) inside the others, each mapped by the fit of the others, land ${holdout.rms_mm} mm RMS, ${holdout.max_mm} mm worst from the tip`,
    );
    if (holdout.max_mm > HOLDOUT_WARN_MM)
      say(
        `warning: a mark the fit did not use is ${holdout.max_mm} mm off: a pixel is not where its tip is (the drawn tip, not the wrist), or a mark moved; the residual alone cannot show it`,
      );
  } else
    say(
      `note: no mark lies inside the others, so none can be left out to check the fit (${MIN_POINTS} marks fix a homography exactly: their residual is 0 whatever the errors); add marks inside the work area`,
    );
  const table = { z: round(z, 5), points };
  if (values.write) {
    writeTableCalibration(configPath, cameraName, table);
    say(`${configPath}: cameras[${cameraName}].table written`);
  } else if (values.json !== true) {
    io.stdout.write(`# cameras: - name: ${cameraName} … table:\n${JSON.stringify(table)}\n`);
  }
  if (values.json === true)
    io.stdout.write(
      JSON.stringify({
        camera: cameraName,
        residual,
        holdout: holdout ?? null,
        table,
        written: values.write === true,
      }) + "\n",
    );
}

function round(v: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

function parsePose(text: string): Record<string, number> {
  const pose: Record<string, number> = {};
  for (const part of text.split(",")) {
    const [name, value] = part.split("=");
    const v = Number(value);
    if (!name || value === undefined || !Number.isFinite(v))
      throw cliUsageError(`--pose takes JOINT=RAD,JOINT=RAD,… (got ${JSON.stringify(text)})`);
    pose[name.trim()] = v;
  }
  return pose;
}

function parsePixel(text: string): readonly [number, number] {
  const m = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw cliUsageError(`a pixel is COL,ROW (got ${JSON.stringify(text)})`);
  return [Number(m[1]), Number(m[2])];
}
