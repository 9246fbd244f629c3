import { ArmbridgeError } from "../../../errors.js";
import { jogAndReturn, readPositions } from "../../../transport/bus/setup/handCalibration.js";
import type { CalibrationRun } from "./CalibrationRun.js";
import { describeDirection } from "./describeDirection.js";

export interface DirectionOptions {
  /** Degrees each joint is jogged (default 5). */
  readonly jogDeg: number;
  /** Degrees per second of the jog (default 10: slow enough to stop by hand). */
  readonly degPerSecond: number;
  /** Signs known already (`--sign J=+1|-1`): no jog for those joints. */
  readonly given: ReadonlyMap<string, 1 | -1>;
}

/**
 * For each joint, with the operator's go-ahead: torque on, a slow jog of a
 * few degrees (towards the middle of its travel) and back, and the
 * question whether it moved the way the URDF's positive rotation goes,
 * described in words from forward kinematics. The answer is the sign.
 */
export async function directionStep(run: CalibrationRun, options: DirectionOptions): Promise<void> {
  const joints = run.axes.filter((a) => a.kind === "joint");
  for (const a of joints) measuredJoint(run, a.name);
  for (const [name, sign] of options.given) {
    const existing = run.axis(name);
    if (existing?.kind === "joint") run.setAxis(name, { ...existing, sign });
  }
  const toJog = joints.filter((a) => !options.given.has(a.name));
  if (toJog.length > 0) {
    const bus = run.bus("direction");
    await agreeToJog(run, options);
    const counts = await readPositions(
      bus,
      toJog.map((a) => a.id),
      run.signal,
    );
    for (const a of toJog) await jogAndAsk(run, bus, a, counts.get(a.id), options);
  }
  run.saveStep("direction");
}

type Axis = CalibrationRun["axes"][number];
type Bus = ReturnType<CalibrationRun["bus"]>;

/** The joint's calibration so far, which must hold its centre and range: the zero and range steps must have run. */
function measuredJoint(run: CalibrationRun, name: string) {
  const cal = run.axis(name);
  if (cal?.kind !== "joint" || cal.center === undefined || cal.range_min === undefined || cal.range_max === undefined)
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
      step: "direction",
      reason: `${name} has no centre and range yet: run the zero and range steps first`,
    });
  return { ...cal, center: cal.center, range_min: cal.range_min, range_max: cal.range_max };
}

/** Says what will move and how, asks for the zero pose, and (without --yes) for the operator's go-ahead. */
async function agreeToJog(run: CalibrationRun, options: DirectionOptions): Promise<void> {
  run.say(
    `direction: each joint will now move by itself — torque on, slowly (${options.degPerSecond}°/s), ${options.jogDeg}° and back — one at a time. Keep hands and things clear of the arm.`,
    { event: "step", step: "direction", state: "briefing" },
  );
  await run.waitForEnter(
    "direction",
    "direction: put the arm back in its zero pose (the descriptions below assume it).",
  );
  if (run.yes) return;
  const go = await run.ask("direction", "direction: jog the joints now?", "[y/N]");
  if (go !== "y" && go !== "yes")
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
      step: "direction",
      reason: "the operator did not confirm the jogs",
    });
}

/** Jogs one joint towards the middle of its travel, asks whether it went the URDF's way, and sets its sign. */
async function jogAndAsk(
  run: CalibrationRun,
  bus: Bus,
  a: Axis,
  count: number | undefined,
  options: DirectionOptions,
): Promise<void> {
  const cal = measuredJoint(run, a.name);
  const cpr = cal.counts_per_rev;
  const delta = Math.round((options.jogDeg / 360) * cpr);
  const now = count ?? cal.center;
  // Towards the middle of the measured travel, so a jog never runs into an end stop.
  const step = cal.range_max - now >= now - cal.range_min ? delta : -delta;
  if (now + step < cal.range_min || now + step > cal.range_max) {
    throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
      step: "direction",
      reason: `${a.name} is at ${now}, too near the ends of its travel (${cal.range_min}..${cal.range_max}) for a ${options.jogDeg}° jog`,
    });
  }
  const radians = (step / cpr) * 2 * Math.PI;
  const zeroPose = Object.fromEntries(run.config.arm.joints.map((j) => [j.name, 0]));
  const words =
    describeDirection(run.config, a.name, radians, zeroPose) ??
    `its count goes ${step > 0 ? "up" : "down"} (the config has no URDF to say more)`;
  let answer = "";
  const jog = await jogAndReturn(
    bus,
    a.id,
    step,
    (options.degPerSecond / 360) * cpr,
    async (j) => {
      run.emit({ event: "jog", joint: a.name, id: a.id, from: j.from, to: j.reached, expected: words });
      for (;;) {
        answer = await run.ask(
          "direction",
          `direction: ${a.name} turned ${options.jogDeg}° and holds there. By the URDF, ${words}. Did it move that way?`,
          "[y]es / [n]o, the other way / [s]kip",
        );
        if (["y", "yes", "n", "no", "s", "skip"].includes(answer)) return;
      }
    },
    run.signal,
  );
  if (Math.abs(jog.reached - jog.from) < Math.abs(step) / 2)
    run.say(`direction: warning: ${a.name} moved only ${jog.reached - jog.from} counts of ${step}`, {
      event: "warning",
      step: "direction",
      joint: a.name,
    });
  if (answer.startsWith("s")) {
    run.say(`direction: ${a.name} skipped; its sign stays unknown`, { event: "skipped", joint: a.name });
    return;
  }
  // The words described this jog's count change read with sign +1: a yes confirms +1, a no means the servo is mounted reversed.
  const sign: 1 | -1 = answer.startsWith("y") ? 1 : -1;
  run.setAxis(a.name, { ...cal, sign });
  run.say(`direction: ${a.name}: sign ${sign > 0 ? "+1" : "-1"}`, { event: "sign", joint: a.name, sign });
}
