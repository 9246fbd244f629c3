import { resolve } from "node:path";
import { defaultDataDir } from "../../../bridge/defaultDataDir.js";
import type { ArmConfig } from "../../../config/ArmConfig.js";
import { loadConfig } from "../../../config/loadConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import { protocolNamed } from "../../../protocol/bus/index.js";
import { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import type { RclnodejsImporter } from "../../../transport/ros2/loadRclnodejs.js";
import { linkForUrl } from "../../../transport/link/openLink.js";
import { wantsJson } from "../bus/printRecords.js";
import { JSON_FLAG_HELP } from "../printRecords.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { parseCommandFlags } from "../../runtime/parseCommandFlags.js";
import { checkCameras, checkEnvelope, checkLedger } from "./armChecks.js";
import { checkBus } from "./busChecks.js";
import { checkCalibration } from "./calibrationCheck.js";
import { checkDevice, checkLatencyTimer } from "./deviceChecks.js";
import { fail, formatCheck, ok, warn, type DoctorCheck } from "./DoctorCheck.js";
import { checkRos } from "./rosChecks.js";

export const DOCTOR_HELP = `Usage: armbridge doctor [--config FILE] [--serial LINK | --ros] [--data DIR] [--json]

One line per check, OK / WARN / FAIL, with the fix for anything not OK:
  config         the config loads
  device         LINK exists and this user can read and write it (Linux: the dialout group)
  latency timer  a USB-serial adapter's latency timer, read from sysfs (1 ms advised)
  ledger         where the intent ledger lives, that this user can write it, and whether a bridge holds it
  link           round trip of a ping on the bus
  servo N        every configured servo answers, as the configured model
  servo errors, supply, temperature    hardware errors, voltage and temperature inside each servo's limits
  calibration    present and plausible (or the simulator, calibrated by construction)
  envelope       the URDF and the workspace envelope load
  camera NAME    each camera gives a whole frame, fresh by its stale_after_ms
  ros, rclnodejs, controllers (--ros)  ROS 2 sourced, and the arm's controllers active
Exit 1 when any check FAILs, else 0. A table on a terminal, else (or with --json) JSON.
A bridge holding the arm's ledger is using its bus: the bus checks are then skipped.

Flags:
  --config FILE      arm config (default: the simulated arm)
  --serial LINK      the bus adapter or firmware link (device path, tcp://, rfc2217://)
  --ros              check the ROS 2 side instead of a serial link
  --data DIR         the ledger's folder, if serve is given --data
${JSON_FLAG_HELP}`;

export const DOCTOR_FLAGS = {
  config: { type: "string" },
  serial: { type: "string" },
  ros: { type: "boolean" },
  data: { type: "string" },
  json: { type: "boolean" },
} as const;

export interface DoctorControls {
  /** Where sysfs is mounted (tests give a tree of their own). */
  readonly sysfsRoot?: string;
  readonly rclnodejsImporter?: RclnodejsImporter;
}

export async function doctorCommand(
  argv: readonly string[],
  io: CliIo,
  controls: DoctorControls = {},
): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, DOCTOR_FLAGS);
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.serial !== undefined && values.ros === true)
    throw cliUsageError("--serial and --ros were both given; doctor checks one arm connection");
  const checks: DoctorCheck[] = [];
  const json = wantsJson(io, values.json);
  const report = (c: DoctorCheck): void => {
    checks.push(c);
    if (!json) io.stdout.write(formatCheck(c));
  };

  // The config, without its calibration file: that file is a check of its own.
  const configPath = values.config;
  const { config, named } = checkConfig(configPath, report);
  if (config) await checkArm({ config, configPath, named, values, io, controls, report });

  const failed = checks.filter((c) => c.status === "FAIL");
  if (json) io.stdout.write(JSON.stringify({ ok: failed.length === 0, checks }) + "\n");
  else
    io.stdout.write(
      failed.length === 0
        ? `\nno check failed (${checks.filter((c) => c.status === "WARN").length} warnings)\n`
        : `\n${failed.length} check(s) failed: ${failed.map((c) => c.check).join(", ")}\n`,
    );
  return failed.length === 0 ? 0 : 1;
}

/** The config read and said (without its calibration file, which is a check of its own). */
function checkConfig(
  configPath: string | undefined,
  report: (c: DoctorCheck) => void,
): { config: ArmConfig | undefined; named: string | undefined } {
  let named: string | undefined;
  let config: ArmConfig | undefined;
  try {
    config =
      configPath === undefined
        ? loadConfig()
        : loadConfig(configPath, { edit: (raw) => withoutCalibration(raw, (c) => (named = c)) });
    report(
      ok(
        "config",
        `${configPath ?? "the default simulated arm"}: arm ${config.arm.name}, ${config.arm.joints.length} joints${config.arm.gripper ? " and a gripper" : ""}${config.bus ? ` on a ${config.bus.protocol} bus at ${config.bus.baud} baud` : ""}`,
      ),
    );
  } catch (error) {
    report(
      fail(
        "config",
        isArmbridgeError(error) ? error.message : String(error),
        "correct the config (docs/servo-bus.md, docs/kinematics.md, docs/cameras.md)",
      ),
    );
  }

  return { config, named };
}

/** The checks of an arm whose config loaded: device, latency timer, ledger, bus, envelope, cameras, ROS. */
async function checkArm(arm: {
  readonly config: ArmConfig;
  readonly configPath: string | undefined;
  readonly named: string | undefined;
  readonly values: ReturnType<typeof parseCommandFlags<typeof DOCTOR_FLAGS>>["values"];
  readonly io: CliIo;
  readonly controls: DoctorControls;
  readonly report: (c: DoctorCheck) => void;
}): Promise<void> {
  const { config, configPath, named, values, io, controls, report } = arm;
  const link = values.serial;
  if (link !== undefined) {
    report(checkDevice(link));
    report(checkLatencyTimer(link, controls.sysfsRoot));
  }
  const ledger = checkLedger(resolve(values.data ?? defaultDataDir(config.arm.name, io.env)), config.arm.name);
  report(ledger.check);
  if (link !== undefined && config.bus) {
    if (ledger.runningBridge !== undefined) {
      report(
        warn(
          "bus",
          `skipped: a running bridge (${ledger.runningBridge}) is using the bus`,
          "stop it to check the bus, or ask it: armbridge actions / GET /v1/state",
        ),
      );
    } else {
      for (const c of await busChecks(config, configPath ?? "FILE", named, link)) report(c);
    }
  } else if (link !== undefined) {
    report(
      ok("link", "a firmware arm: its link is checked by serve's handshake (HELLO); this doctor checks servo buses"),
    );
  } else if (config.bus && values.ros !== true) {
    report(
      warn(
        "link",
        "no --serial LINK given: the bus, servos and calibration were not checked",
        `armbridge doctor --config ${configPath ?? "FILE"} --serial LINK`,
      ),
    );
  }
  report(checkEnvelope(config));
  for (const c of await checkCameras(config, { ros: values.ros === true })) report(c);
  if (values.ros === true) for (const c of await checkRos(config, io.env, controls.rclnodejsImporter)) report(c);
}

function withoutCalibration(
  raw: Record<string, unknown>,
  found: (calibration: string) => void,
): Record<string, unknown> {
  const bus = raw.bus as Record<string, unknown> | undefined;
  if (!bus) return raw;
  if (typeof bus.calibration === "string") found(bus.calibration);
  const { calibration: _c, ...rest } = bus;
  return { ...raw, bus: rest };
}

/** The checks that talk on the bus; the link is opened for them and closed after. */
async function busChecks(
  config: ArmConfig,
  configPath: string,
  named: string | undefined,
  link: string,
): Promise<DoctorCheck[]> {
  const bus = config.bus;
  if (!bus) return [];
  const byteLink = linkForUrl(link, { baudRate: bus.baud });
  try {
    await byteLink.open(AbortSignal.timeout(5000));
  } catch (error) {
    return [
      fail(
        "link",
        isArmbridgeError(error) ? error.message : String(error),
        "see device above; for tcp:// and rfc2217://, is the server running?",
      ),
    ];
  }
  try {
    const exchange = new BusExchange(byteLink, protocolNamed(bus.protocol), bus.baud);
    const { checks, answering } = await checkBus(exchange, config, link);
    checks.push(...(await checkCalibration(exchange, config, configPath, named, link, answering)));
    return checks;
  } finally {
    await byteLink.close();
  }
}
