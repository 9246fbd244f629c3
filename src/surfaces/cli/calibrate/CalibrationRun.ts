import { existsSync } from "node:fs";
import type { ArmConfig } from "../../../config/ArmConfig.js";
import {
  ARMBRIDGE_CALIBRATION_FORMAT,
  isArmbridgeCalibration,
  missingSteps,
  parseBusCalibrationFile,
  writeBusCalibrationFile,
  type BusCalibrationFile,
  type CalibrationAxis,
  type CalibrationStep,
} from "../../../config/busCalibrationFile.js";
import { ArmbridgeError } from "../../../errors.js";
import type { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import { servoAxesOf, type ServoAxis } from "../../../protocol/bus/servoAxes.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import type { LineReader } from "./LineReader.js";
import { readBoundedJson } from "../../../config/files/readBoundedFile.js";

/** Everything one `armbridge calibrate` run works with: the arm, the bus, the operator, and the file taking shape. */
export class CalibrationRun {
  readonly config: ArmConfig;
  readonly axes: readonly ServoAxis[];
  readonly path: string;
  readonly exchange: BusExchange | undefined;
  readonly io: CliIo;
  readonly lines: LineReader;
  readonly json: boolean;
  /** --yes: no waiting for Enter, no asking before a jog. */
  readonly yes: boolean;
  readonly signal: AbortSignal | undefined;
  draft: BusCalibrationFile;

  constructor(o: {
    config: ArmConfig;
    path: string;
    exchange: BusExchange | undefined;
    io: CliIo;
    lines: LineReader;
    json: boolean;
    yes: boolean;
    link: string | undefined;
    signal?: AbortSignal | undefined;
  }) {
    this.config = o.config;
    this.axes = servoAxesOf(o.config);
    this.path = o.path;
    this.exchange = o.exchange;
    this.io = o.io;
    this.lines = o.lines;
    this.json = o.json;
    this.yes = o.yes;
    this.signal = o.signal;
    this.draft = existingOrNew(o.config, o.path, o.link);
  }

  /** The bus, for a step that needs it. */
  bus(step: CalibrationStep | "export"): BusExchange {
    if (!this.exchange)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", { step, reason: "it needs the arm: pass --serial LINK" });
    return this.exchange;
  }

  ids(): number[] {
    return this.axes.map((a) => a.id);
  }

  /** For people (stderr), and as an event for scripts with --json. */
  say(text: string, event?: Record<string, unknown>): void {
    this.io.stderr.write(text + "\n");
    if (this.json && event) this.emit(event);
  }

  emit(event: Record<string, unknown>): void {
    this.io.stdout.write(JSON.stringify(event) + "\n");
  }

  /** Waits for Enter (unless --yes); a closed stdin is an answer nobody gave. */
  async waitForEnter(step: CalibrationStep, text: string): Promise<void> {
    if (this.yes) {
      this.say(`${text} (--yes: going on)`, { event: "prompt", step, text, answered: "yes" });
      return;
    }
    this.say(`${text} Press Enter.`, { event: "prompt", step, text });
    const line = await this.lines.next(this.signal);
    if (line === undefined)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", {
        step,
        reason: "stdin closed before Enter (run it at a terminal, or pass --yes when the arm is already in place)",
      });
  }

  /** A yes/no question; a closed stdin is no answer. */
  async ask(step: CalibrationStep, text: string, choices: string): Promise<string> {
    this.say(`${text} ${choices}`, { event: "question", step, text, choices });
    const line = await this.lines.next(this.signal);
    if (line === undefined)
      throw new ArmbridgeError("ARMB_ERR_CALIBRATION_STEP", { step, reason: `no answer to "${text}" (stdin closed)` });
    return line.trim().toLowerCase();
  }

  axis(name: string): CalibrationAxis | undefined {
    return this.draft.axes[name];
  }

  setAxis(name: string, axis: CalibrationAxis): void {
    this.draft = { ...this.draft, axes: { ...this.draft.axes, [name]: axis } };
  }

  /** Records a finished step and writes the file (whole, or not at all). */
  saveStep(step: CalibrationStep): void {
    this.draft = { ...this.draft, steps: { ...this.draft.steps, [step]: new Date().toISOString() } };
    writeBusCalibrationFile(this.path, this.draft);
    const missing = missingSteps(this.draft, this.config);
    this.say(
      `${step}: written to ${this.path}${missing.length === 0 ? " (complete)" : ` (still to do: ${missing.join(", ")})`}`,
      { event: "written", step, path: this.path, complete: missing.length === 0, missing },
    );
  }
}

/** The file being filled in: what an earlier run left (for this arm and bus), or a new one with the config's servos. */
function existingOrNew(config: ArmConfig, path: string, link: string | undefined): BusCalibrationFile {
  const protocol = config.bus?.protocol;
  if (!protocol)
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: "bus",
      issues: "calibration is for servo-bus arms: the config has no bus: section",
    });
  const fresh = (): BusCalibrationFile => {
    const axes: Record<string, CalibrationAxis> = {};
    for (const j of config.arm.joints) {
      if (j.servo)
        axes[j.name] = {
          kind: "joint",
          id: j.servo.id,
          ...(j.servo.model === undefined ? {} : { model: j.servo.model }),
          counts_per_rev: j.servo.countsPerRev,
        };
    }
    const g = config.arm.gripper;
    if (g?.servo)
      axes[g.name] = {
        kind: "gripper",
        id: g.servo.id,
        ...(g.servo.model === undefined ? {} : { model: g.servo.model }),
      };
    return {
      format: ARMBRIDGE_CALIBRATION_FORMAT,
      arm: config.arm.name,
      protocol,
      ...(link === undefined ? {} : { link }),
      steps: {},
      axes,
    };
  };
  if (!existsSync(path)) return fresh();
  let raw: unknown;
  try {
    raw = readBoundedJson(path, "calibration");
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  if (!isArmbridgeCalibration(raw)) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path,
      issues:
        "it is not an armbridge calibration (a LeRobot file? import it with --import-lerobot, or write elsewhere with --out)",
    });
  }
  const file = parseBusCalibrationFile(raw, path);
  if (file.protocol !== protocol) return fresh();
  // Keep what was measured for the servos the config still names the same way; start the others afresh.
  const base = fresh();
  const axes = { ...base.axes };
  for (const [name, a] of Object.entries(file.axes)) {
    const now = axes[name];
    if (now && now.id === a.id && now.kind === a.kind) axes[name] = a;
  }
  return { ...base, steps: file.steps, axes };
}
