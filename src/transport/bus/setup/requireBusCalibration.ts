import type { ArmConfig } from "../../../config/ArmConfig.js";
import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "../../link/ByteLink.js";
import { protocolNamed } from "../../../protocol/bus/index.js";
import { servoAxesOf } from "../../../protocol/bus/servoAxes.js";
import { BusExchange } from "./BusExchange.js";
import { checkSimulatorMount } from "./simulatorMount.js";

/** Why a bus arm counts as calibrated. */
export type CalibrationSource = { readonly kind: "file"; readonly path: string } | { readonly kind: "simulator" };

/**
 * A bus arm is driven only when its servos' centres and directions were
 * measured: a calibration file (`bus.calibration`, from `armbridge
 * calibrate` or LeRobot), or — for armbridge-sim, calibrated by construction
 * — servos whose mount block agrees with the config. Anything else is
 * ARMB_ERR_BUS_NOT_CALIBRATED, before a single torque write. The link is
 * opened for the check; it is left open for the transport when the arm
 * passes (closing and reopening would race a one-host-at-a-time server such
 * as ser2net for the port), and closed when it does not.
 */
export async function requireBusCalibration(
  config: ArmConfig,
  link: ByteLink,
  options: { readonly configLabel: string; readonly signal?: AbortSignal },
): Promise<CalibrationSource> {
  const bus = config.bus;
  if (!bus)
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: options.configLabel,
      issues: "the config has no bus: section",
    });
  if (bus.calibration !== undefined) return { kind: "file", path: bus.calibration };
  const refuse = (reason: string): ArmbridgeError =>
    new ArmbridgeError("ARMB_ERR_BUS_NOT_CALIBRATED", {
      arm: config.arm.name,
      protocol: bus.protocol,
      reason,
      config: options.configLabel,
      link: link.url,
    });
  await link.open(options.signal);
  try {
    const exchange = new BusExchange(link, protocolNamed(bus.protocol), bus.baud);
    // The transport goes on using this link with its own listener.
    const checks = await checkSimulatorMount(exchange, servoAxesOf(config), options.signal).finally(() =>
      exchange.dispose(),
    );
    const silent = checks.flatMap((c) => (c.kind === "silent" ? [`${c.id} (${c.axis})`] : []));
    // Every servo must speak before any is judged: one that answers later would otherwise be driven unchecked.
    if (silent.length > 0)
      throw new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", {
        detail: `no answer from servo id(s) ${silent.join(", ")} on ${link.url}`,
      });
    const foreign = checks.find((c) => c.kind === "not_simulated");
    if (foreign)
      throw refuse(
        `the config names no bus.calibration file, and its servos are not armbridge-sim's, which alone is calibrated by construction (asked ${foreign.axis})`,
      );
    const differs = checks.flatMap((c) => (c.kind === "differs" ? [`${c.axis}: ${c.detail}`] : []));
    if (differs.length > 0)
      throw refuse(
        `the config names no bus.calibration file, and the simulated servos are not mounted as it says (${differs.join("; ")})`,
      );
    return { kind: "simulator" };
  } catch (error) {
    await link.close();
    throw error;
  }
}
