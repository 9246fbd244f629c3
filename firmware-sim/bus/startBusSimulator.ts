import type { Logger } from "pino";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { ArmbridgeError } from "../../src/errors.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { createLogger } from "../../src/observability/logger.js";
import { protocolNamed, type BusProtocolName } from "../../src/transport/bus/protocol/index.js";
import { realClock, type Clock } from "../Clock.js";
import { EffectsLog, type EffectsSink } from "../EffectsLog.js";
import { FaultPlan } from "../faults.js";
import type { DeviceLink } from "../links/DeviceLink.js";
import { startPtyLink } from "../links/ptyLink.js";
import { startTcpLink } from "../links/tcpLink.js";
import type { SimOptions } from "../simOptions.js";
import { BusSimulator } from "./BusSimulator.js";

export interface StartBusSimulatorOptions extends Partial<SimOptions> {
  readonly bus: BusProtocolName;
  readonly armConfig?: ArmConfig;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly effects?: EffectsSink;
  readonly onFatal?: (reason: string) => void;
}

export interface RunningBusSimulator {
  readonly link: string;
  readonly bus: BusSimulator;
  close(): Promise<void>;
}

/** firmware-sim in servo-bus mode: the config's servos on one bus, behind a TCP or PTY link. */
export async function startBusSimulator(options: StartBusSimulatorOptions): Promise<RunningBusSimulator> {
  const logger = (options.logger ?? createLogger()).child({ component: "firmware-sim-bus", protocol: options.bus });
  const config = options.armConfig ?? loadConfig(...(options.config === undefined ? [] : [options.config]));
  if (!config.bus) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: options.config ?? "<config>", issues: "--bus needs a config with a bus: section and a servo per joint" });
  if (config.bus.protocol !== options.bus) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: options.config ?? "<config>", issues: `--bus ${options.bus} but the config's bus.protocol is ${config.bus.protocol}` });
  }
  const plan = new FaultPlan(options.seed ?? 1, {
    failRate: options.failRate ?? 0,
    dropRate: options.dropRate ?? 0,
    corruptRate: options.corruptRate ?? 0,
    freezeRate: options.freezeRate ?? 0,
    stallRate: options.stallRate ?? 0,
    rebootRate: options.rebootRate ?? 0,
  });
  const fileLog = options.effectsLog === undefined ? undefined : new EffectsLog(options.effectsLog);
  const effects: EffectsSink = fileLog ?? options.effects ?? { append: () => undefined };
  const bus = new BusSimulator({
    config,
    protocol: protocolNamed(options.bus),
    clock: options.clock ?? realClock(),
    faults: plan,
    effects,
    logger,
    ackDelayMs: options.ackDelayMs ?? 0,
    baud: options.baud,
  });
  const shutdownParts = (): void => {
    bus.close();
    fileLog?.close();
  };
  let link: DeviceLink;
  try {
    link =
      (options.link ?? "tcp") === "pty"
        ? await startPtyLink({ endpoint: bus, logger, onFatal: options.onFatal ?? ((reason) => logger.error({ reason }, "link lost")) })
        : await startTcpLink({ port: options.port ?? 0, endpoint: bus, logger });
  } catch (error) {
    shutdownParts();
    throw error;
  }
  logger.info({ link: link.url, servos: [...bus.servos.keys()] }, "bus simulator ready");
  let closing: Promise<void> | undefined;
  return {
    link: link.url,
    bus,
    close() {
      closing ??= (async () => {
        shutdownParts();
        await link.close();
      })();
      return closing;
    },
  };
}
