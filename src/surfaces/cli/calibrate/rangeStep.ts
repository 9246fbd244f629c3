import { ArmbridgeError } from "../../../errors.js";
import { readPositions, torqueOff } from "../../../transport/bus/setup/handCalibration.js";
import type { CalibrationRun } from "./CalibrationRun.js";

/** Travel (counts) below which a joint was not moved through its range: about 3° at 4096 per turn. */
const MIN_TRAVEL = 30;
const SAMPLE_MS = 40;

interface Seen {
  min: number;
  max: number;
  now: number;
  last: number;
  /** The reading jumped by more than half a turn between two samples: the travel crosses the encoder's seam. */
  wrapped: boolean;
}

/**
 * Torque off; the operator moves every joint end to end by hand (the
 * gripper fully open) while a live readout shows each servo's count, min
 * and max; Enter ends it (or `seconds`). `given` joints take the range from
 * the command line instead (`--range J=MIN:MAX`).
 */
export async function rangeStep(
  run: CalibrationRun,
  options: { readonly seconds: number | undefined; readonly given: ReadonlyMap<string, readonly [number, number]> },
): Promise<void> {
  requireZeroStep(run);
  const measured = run.axes.filter((a) => !options.given.has(a.name));
  const seen = measured.length > 0 ? await recordTravel(run, measured, options.seconds) : new Map<string, Seen>();
  const problems = run.axes.flatMap((a) => setRange(run, a, options.given.get(a.name), seen.get(a.name)));
  if (problems.length > 0)
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", { step: "range", reason: problems.join("; ") });
  run.emit({ event: "range", axes: Object.fromEntries(run.axes.map((a) => [a.name, run.axis(a.name)])) });
  run.saveStep("range");
}

type Axis = CalibrationRun["axes"][number];

/** Ranges are checked against each joint's centre and the gripper's closed count: the zero step must have run. */
function requireZeroStep(run: CalibrationRun): void {
  for (const a of run.axes) {
    const existing = run.axis(a.name);
    if (existing?.kind === "joint" && existing.center === undefined)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
        step: "range",
        reason: `${a.name} has no centre yet: run the zero step first`,
      });
    if (existing?.kind === "gripper" && existing.closed === undefined)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
        step: "range",
        reason: `the gripper has no closed count yet: run the zero step first`,
      });
  }
}

/** Torque off, then sample every measured servo until Enter (or `seconds`), showing the readout as it goes. */
async function recordTravel(
  run: CalibrationRun,
  measured: readonly Axis[],
  seconds: number | undefined,
): Promise<Map<string, Seen>> {
  const bus = run.bus("range");
  const seen = new Map<string, Seen>();
  for (const a of measured) await torqueOff(bus, a.id, run.signal);
  const how = seconds === undefined ? "then press Enter" : `recording for ${seconds} s`;
  run.say(
    `range: torque is off. Move every joint slowly from one end of its travel to the other, and open the gripper fully; ${how}.`,
    { event: "step", step: "range", state: "recording", seconds },
  );
  const started = performance.now();
  const readout = liveReadout(run, measured);
  let lastEmit = 0;
  for (;;) {
    run.signal?.throwIfAborted();
    const counts = await readPositions(
      bus,
      measured.map((a) => a.id),
      run.signal,
    );
    for (const a of measured) {
      const c = counts.get(a.id);
      if (c !== undefined) track(seen, a.name, c);
    }
    const elapsed = performance.now() - started;
    readout(seen);
    if (run.json && elapsed - lastEmit >= 200) {
      lastEmit = elapsed;
      run.emit({
        event: "readout",
        step: "range",
        axes: Object.fromEntries([...seen].map(([n, s]) => [n, { count: s.now, min: s.min, max: s.max }])),
      });
    }
    if (seconds !== undefined ? elapsed >= seconds * 1000 : run.lines.poll() !== undefined) return seen;
    if (seconds === undefined && run.lines.ended)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
        step: "range",
        reason: "stdin closed before Enter (pass --range-seconds S to record for a fixed time)",
      });
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
}

/** One more reading of a servo: its min, max and now, and whether it jumped across the encoder's seam. */
function track(seen: Map<string, Seen>, name: string, count: number): void {
  const s = seen.get(name);
  if (!s) {
    seen.set(name, { min: count, max: count, now: count, last: count, wrapped: false });
    return;
  }
  if (Math.abs(count - s.last) > 2048) s.wrapped = true;
  s.min = Math.min(s.min, count);
  s.max = Math.max(s.max, count);
  s.now = count;
  s.last = count;
}

/** On a terminal, one row per servo redrawn in place; elsewhere nothing (the JSON readout is the record). */
function liveReadout(run: CalibrationRun, measured: readonly Axis[]): (seen: ReadonlyMap<string, Seen>) => void {
  if ((run.io.stderr as { isTTY?: boolean }).isTTY !== true) return () => undefined;
  let drawn = 0;
  return (seen) => {
    if (drawn > 0) run.io.stderr.write(`\x1b[${drawn}A`);
    const rows = measured.map((a) => {
      const s = seen.get(a.name);
      return `  ${a.name.padEnd(16)} id ${String(a.id).padEnd(4)} now ${String(s?.now ?? "?").padStart(5)}   min ${String(s?.min ?? "?").padStart(5)}   max ${String(s?.max ?? "?").padStart(5)}\x1b[K\n`;
    });
    run.io.stderr.write(rows.join(""));
    drawn = rows.length;
  };
}

/** Sets one axis's range (a joint) or open count (the gripper) from what was given or seen; returns what is wrong. */
function setRange(
  run: CalibrationRun,
  a: Axis,
  given: readonly [number, number] | undefined,
  s: Seen | undefined,
): string[] {
  const existing = run.axis(a.name);
  const [min, max] = given ?? (s ? [s.min, s.max] : [undefined, undefined]);
  if (min === undefined || max === undefined) return [`${a.name}: servo ${a.id} did not answer`];
  const problems: string[] = [];
  if (s?.wrapped)
    problems.push(
      `${a.name}: its travel crosses the encoder's 0/4095 seam, which a single-turn position cannot express (set the servo's Homing_Offset so the travel sits mid-turn, or re-seat the horn)`,
    );
  if (existing?.kind === "joint") {
    if (max - min < MIN_TRAVEL) problems.push(`${a.name}: moved only ${max - min} counts; move it end to end`);
    else if (existing.center !== undefined && (existing.center < min || existing.center > max))
      problems.push(`${a.name}: its zero pose (${existing.center}) lies outside the travel shown (${min}..${max})`);
    else run.setAxis(a.name, { ...existing, range_min: min, range_max: max });
  } else if (existing?.kind === "gripper" && existing.closed !== undefined) {
    const open = Math.abs(max - existing.closed) >= Math.abs(existing.closed - min) ? max : min;
    if (Math.abs(open - existing.closed) < MIN_TRAVEL)
      problems.push(`${a.name}: opened only ${Math.abs(open - existing.closed)} counts; open it fully`);
    else run.setAxis(a.name, { ...existing, open });
  }
  return problems;
}
