import { ArmbridgeError } from "../../src/errors.js";
import { createLogger } from "../../src/observability/logger.js";
import { protocolNamed, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { startOnLink, type SimStartOptions } from "../startOnLink.js";
import { readBusLayout, type BusLayoutFile } from "./BusLayout.js";
import { BusSimulator } from "./BusSimulator.js";

export interface StartBusSimulatorOptions extends SimStartOptions {
  readonly bus: BusProtocolName;
  /** The model number every servo reports (tests: another arm on the same port). */
  readonly modelNumber?: number;
  /** What is on the bus (BusLayout.ts), given in code (tests); wins over `busLayout`, a file. */
  readonly layout?: BusLayoutFile | undefined;
}

export interface RunningBusSimulator {
  readonly link: string;
  readonly bus: BusSimulator;
  /** The wire goes away for `ms`, the servos running on (--link tcp only): see DeviceLink.interrupt. */
  interruptLink(ms: number, onBack?: (at: number) => void): Promise<void>;
  close(): Promise<void>;
}

/** firmware-sim in servo-bus mode: the config's servos on one bus, behind a TCP or PTY link. */
export async function startBusSimulator(options: StartBusSimulatorOptions): Promise<RunningBusSimulator> {
  const logger = (options.logger ?? createLogger()).child({ component: "firmware-sim-bus", protocol: options.bus });
  const running = await startOnLink(options, logger, ({ config, clock, plan, effects }) => {
    const where = options.config ?? "<config>";
    if (!config.bus)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: "--bus needs a config with a bus: section and a servo per joint",
      });
    if (config.bus.protocol !== options.bus)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: `--bus ${options.bus} but the config's bus.protocol is ${config.bus.protocol}`,
      });
    const bus = new BusSimulator({
      config,
      protocol: protocolNamed(options.bus),
      clock,
      faults: plan,
      effects,
      logger,
      ackDelayMs: options.ackDelayMs ?? 0,
      baud: options.baud,
      layout: options.layout ?? (options.busLayout === undefined ? undefined : readBusLayout(options.busLayout)),
      ...(options.stallJoints === undefined ? {} : { stallJoints: options.stallJoints }),
      ...(options.powerLossJoints === undefined ? {} : { powerLossJoints: options.powerLossJoints }),
      ...(options.powerLossMs === undefined ? {} : { powerLossMs: options.powerLossMs }),
      ...(options.modelNumber === undefined ? {} : { modelNumber: options.modelNumber }),
      ...(options.heatJoints === undefined ? {} : { heatJoints: options.heatJoints }),
      ...(options.servoTemperatures === undefined ? {} : { servoTemperatures: options.servoTemperatures }),
      ...(options.supplyVoltage === undefined ? {} : { supplyVoltage: options.supplyVoltage }),
    });
    return { endpoint: bus, close: () => bus.close() };
  });
  logger.info(
    {
      link: running.link.url,
      servos: running.endpoint.all.map((s) => ({ id: s.id, baud: s.baud, axis: s.axis.name })),
    },
    "bus simulator ready",
  );
  return {
    link: running.link.url,
    bus: running.endpoint,
    interruptLink: (ms, onBack) => running.link.interrupt(ms, onBack),
    close: () => running.close(),
  };
}
