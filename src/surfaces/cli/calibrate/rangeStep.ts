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
  const bus = run.bus("range");
  const measured = run.axes.filter((a) => !options.given.has(a.name));
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
  const seen = new Map<string, Seen>();
  if (measured.length > 0) {
    for (const a of measured) await torqueOff(bus, a.id, run.signal);
    const how = options.seconds === undefined ? "then press Enter" : `recording for ${options.seconds} s`;
    run.say(
      `range: torque is off. Move every joint slowly from one end of its travel to the other, and open the gripper fully; ${how}.`,
      { event: "step", step: "range", state: "recording", seconds: options.seconds },
    );
    const started = performance.now();
    const tty = (run.io.stderr as { isTTY?: boolean }).isTTY === true;
    let drawn = 0;
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
        if (c === undefined) continue;
        const s = seen.get(a.name);
        if (!s) seen.set(a.name, { min: c, max: c, now: c, last: c, wrapped: false });
        else {
          if (Math.abs(c - s.last) > 2048) s.wrapped = true;
          s.min = Math.min(s.min, c);
          s.max = Math.max(s.max, c);
          s.now = c;
          s.last = c;
        }
      }
      const elapsed = performance.now() - started;
      if (tty) {
        if (drawn > 0) run.io.stderr.write(`\x1b[${drawn}A`);
        const rows = measured.map((a) => {
          const s = seen.get(a.name);
          return `  ${a.name.padEnd(16)} id ${String(a.id).padEnd(4)} now ${String(s?.now ?? "?").padStart(5)}   min ${String(s?.min ?? "?").padStart(5)}   max ${String(s?.max ?? "?").padStart(5)}\x1b[K\n`;
        });
        run.io.stderr.write(rows.join(""));
        drawn = rows.length;
      }
      if (run.json && elapsed - lastEmit >= 200) {
        lastEmit = elapsed;
        run.emit({
          event: "readout",
          step: "range",
          axes: Object.fromEntries([...seen].map(([n, s]) => [n, { count: s.now, min: s.min, max: s.max }])),
        });
      }
      if (options.seconds !== undefined ? elapsed >= options.seconds * 1000 : run.lines.poll() !== undefined) break;
      if (options.seconds === undefined && run.lines.ended)
        throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
          step: "range",
          reason: "stdin closed before Enter (pass --range-seconds S to record for a fixed time)",
        });
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  }
  const problems: string[] = [];
  for (const a of run.axes) {
    const existing = run.axis(a.name);
    const given = options.given.get(a.name);
    const s = seen.get(a.name);
    const [min, max] = given ?? (s ? [s.min, s.max] : [undefined, undefined]);
    if (min === undefined || max === undefined) {
      problems.push(`${a.name}: servo ${a.id} did not answer`);
      continue;
    }
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
  }
  if (problems.length > 0)
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", { step: "range", reason: problems.join("; ") });
  run.emit({ event: "range", axes: Object.fromEntries(run.axes.map((a) => [a.name, run.axis(a.name)])) });
  run.saveStep("range");
}
