import { dirname, resolve } from "node:path";
import type { ArmConfig } from "../../../config/ArmConfig.js";
import { isArmbridgeCalibration, parseBusCalibrationFile } from "../../../config/busCalibrationFile.js";
import { loadConfig } from "../../../config/loadConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import type { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import { readPositions } from "../../../transport/bus/setup/handCalibration.js";
import { checkSimulatorMount } from "../../../transport/bus/setup/simulatorMount.js";
import type { ServoAxis } from "../../../protocol/bus/servoAxes.js";
import { fail, ok, warn, type DoctorCheck } from "./DoctorCheck.js";
import { readBoundedJson } from "../../../config/files/readBoundedFile.js";

/** Counts a joint may read past its calibrated travel before it is implausible (a hand can push a little past what was swept). */
const SLACK = 40;

/**
 * A calibration present and plausible: the file the config names loads and
 * is complete, and every servo reads inside the travel it was calibrated
 * over (a horn that slipped, or a servo swapped since, does not); or no file
 * and the simulator's servos, mounted as the config says.
 */
export async function checkCalibration(
  exchange: BusExchange | undefined,
  base: ArmConfig,
  configPath: string,
  named: string | undefined,
  link: string,
  answering: readonly ServoAxis[],
  signal?: AbortSignal,
): Promise<DoctorCheck[]> {
  const calibrate = `armbridge calibrate --config ${configPath} --serial ${link}`;
  if (named === undefined) return checkNoCalibrationFile(exchange, answering, calibrate, signal);
  const path = resolve(dirname(resolve(configPath)), named);
  try {
    loadConfig(configPath);
  } catch (error) {
    return [fail("calibration", `${named}: ${isArmbridgeError(error) ? error.message : String(error)}`, calibrate)];
  }
  const { travel, taken } = calibratedTravel(path, base);
  const checks: DoctorCheck[] = [ok("calibration", `${named}: loads and is complete${taken}`)];
  if (!exchange || answering.length === 0) return checks;
  checks.push(await checkReadingsInsideTravel(exchange, travel, calibrate, signal));
  return checks;
}

type Travel = ReadonlyMap<string, { id: number; min: number; max: number }>;

/** No file: only armbridge-sim's servos, mounted as the config says, are calibrated (by construction). */
async function checkNoCalibrationFile(
  exchange: BusExchange | undefined,
  answering: readonly ServoAxis[],
  calibrate: string,
  signal: AbortSignal | undefined,
): Promise<DoctorCheck[]> {
  if (!exchange) return [fail("calibration", "the config names no bus.calibration file", calibrate)];
  const checks = await checkSimulatorMount(exchange, answering, signal);
  if (answering.length > 0 && checks.every((c) => c.kind === "matches"))
    return [
      ok("calibration", "armbridge-sim, calibrated by construction: every servo's mount block agrees with the config"),
    ];
  const differs = checks.flatMap((c) => (c.kind === "differs" ? [`${c.axis}: ${c.detail}`] : []));
  return [
    fail(
      "calibration",
      differs.length > 0
        ? `no bus.calibration, and the simulated servos are not mounted as the config says (${differs.join("; ")})`
        : "the config names no bus.calibration file; the shipped centres and directions are guesses",
      calibrate,
    ),
  ];
}

/** Each joint's travel in counts, from whichever format the file is (armbridge's own, or LeRobot's). */
function calibratedTravel(path: string, base: ArmConfig): { travel: Travel; taken: string } {
  let raw: unknown;
  try {
    raw = readBoundedJson(path, "calibration");
  } catch {
    raw = undefined;
  }
  const travel = new Map<string, { id: number; min: number; max: number }>();
  if (isArmbridgeCalibration(raw)) {
    const file = parseBusCalibrationFile(raw, path);
    for (const [name, a] of Object.entries(file.axes))
      if (a.kind === "joint" && a.range_min !== undefined && a.range_max !== undefined)
        travel.set(name, { id: a.id, min: a.range_min, max: a.range_max });
    return { travel, taken: file.steps.range ? `, range taken ${file.steps.range}` : "" };
  }
  if (raw && typeof raw === "object") {
    for (const [name, m] of Object.entries(
      raw as Record<string, { id?: number; range_min?: number; range_max?: number }>,
    )) {
      if (
        typeof m.id === "number" &&
        typeof m.range_min === "number" &&
        typeof m.range_max === "number" &&
        base.arm.joints.some((j) => j.name === name)
      )
        travel.set(name, { id: m.id, min: m.range_min, max: m.range_max });
    }
  }
  return { travel, taken: "" };
}

/** Every servo reads inside the travel it was calibrated over: a horn that slipped, or a servo swapped since, does not. */
async function checkReadingsInsideTravel(
  exchange: BusExchange,
  travel: Travel,
  calibrate: string,
  signal: AbortSignal | undefined,
): Promise<DoctorCheck> {
  const counts = await readPositions(
    exchange,
    [...travel.values()].map((t) => t.id),
    signal,
  );
  const outside: string[] = [];
  for (const [name, t] of travel) {
    const c = counts.get(t.id);
    if (c !== undefined && (c < t.min - SLACK || c > t.max + SLACK))
      outside.push(`${name} reads ${c}, outside its calibrated travel ${t.min}..${t.max}`);
  }
  if (outside.length > 0)
    return fail(
      "calibration",
      `implausible now: ${outside.join("; ")} — a horn slipped, or the servo was swapped, since calibrating`,
      calibrate,
    );
  if (travel.size > 0) return ok("calibration", "every joint reads inside the travel it was calibrated over");
  return warn("calibration", "the file gives no travel to compare the servos' readings with", calibrate);
}
