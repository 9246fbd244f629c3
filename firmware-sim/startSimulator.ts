import type { Logger } from "pino";
import { actuatorsOf } from "../src/config/actuators.js";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { createLogger } from "../src/observability/logger.js";
import { realClock, type Clock } from "./Clock.js";
import { DeviceSession } from "./DeviceSession.js";
import { EffectsLog, type EffectsSink } from "./EffectsLog.js";
import { FaultPlan } from "./faults.js";
import type { DeviceLink } from "./links/DeviceLink.js";
import { startPtyLink } from "./links/ptyLink.js";
import { startTcpLink } from "./links/tcpLink.js";
import { SimulatedArm } from "./SimulatedArm.js";
import { startCameraServer, type CameraServer } from "./cameraServer.js";
import type { SimOptions } from "./simOptions.js";

export const FIRMWARE_VERSION = "armbridge-sim 0.1.0";

export interface StartSimulatorOptions extends Partial<SimOptions> {
  /** An already-loaded arm config; wins over `config` (a path). */
  readonly armConfig?: ArmConfig;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Where effects go when there is no `effectsLog` path (tests keep them in memory). */
  readonly effects?: EffectsSink;
  /** Called if the link dies on its own (socat killed); the simulator is unusable afterwards. */
  readonly onFatal?: (reason: string) => void;
}

export interface RunningSimulator {
  /** What a bridge opens: tcp://127.0.0.1:PORT or the PTY path. */
  readonly link: string;
  readonly arm: SimulatedArm;
  /** The camera snapshot URL, with `cameraPort`. */
  readonly camera?: string;
  /** Stops streaming, closes the link (and socat) and the effects log; idempotent. */
  close(): Promise<void>;
}

/** Starts firmware-sim in this process: the device model, its session, and a link. `main.ts` is a thin CLI over this. */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const logger = (options.logger ?? createLogger()).child({ component: "firmware-sim" });
  const config = options.armConfig ?? loadConfig(...(options.config === undefined ? [] : [options.config]));
  const clock = options.clock ?? realClock();
  const seed = options.seed ?? 1;
  const plan = new FaultPlan(seed, {
    failRate: options.failRate ?? 0,
    dropRate: options.dropRate ?? 0,
    corruptRate: options.corruptRate ?? 0,
    freezeRate: options.freezeRate ?? 0,
    stallRate: options.stallRate ?? 0,
    rebootRate: options.rebootRate ?? 0,
    lateReplyRate: options.lateReplyRate ?? 0,
  });
  const fileLog = options.effectsLog === undefined ? undefined : new EffectsLog(options.effectsLog);
  const effects: EffectsSink = fileLog ?? options.effects ?? { append: () => undefined };
  const arm = new SimulatedArm({
    axes: actuatorsOf(config),
    clock,
    faults: plan,
    effects,
    motionTime: options.motionTime ?? { kind: "profile" },
    logger,
    ...(options.stallJoints === undefined ? {} : { stallJoints: options.stallJoints }),
  });
  const session = new DeviceSession({
    arm,
    clock,
    faults: plan,
    firmwareVersion: FIRMWARE_VERSION,
    logger,
    statusHz: options.statusHz ?? 100,
    watchdogMs: options.watchdogMs ?? 1000,
    ackDelayMs: options.ackDelayMs ?? 0,
    lateReplyMs: options.lateReplyMs,
    baud: options.baud,
  });
  const shutdownParts = (): void => {
    session.close();
    arm.close();
    fileLog?.close();
  };
  let link: DeviceLink;
  try {
    link =
      (options.link ?? "tcp") === "pty"
        ? await startPtyLink({ endpoint: session, logger, onFatal: options.onFatal ?? ((reason) => logger.error({ reason }, "link lost")) })
        : await startTcpLink({ port: options.port ?? 0, endpoint: session, logger });
  } catch (error) {
    shutdownParts();
    throw error;
  }
  let cameras: CameraServer | undefined;
  if (options.cameraPort !== undefined) {
    try {
      cameras = await startCameraServer({ config, port: options.cameraPort, positions: () => arm.positionsByName(), logger });
    } catch (error) {
      shutdownParts();
      await link.close();
      throw error;
    }
  }
  logger.info({ link: link.url, seed, boot_id: arm.bootId, camera: cameras?.url }, "simulator ready");
  let closing: Promise<void> | undefined;
  return {
    link: link.url,
    arm,
    ...(cameras ? { camera: cameras.url } : {}),
    close() {
      closing ??= (async () => {
        shutdownParts();
        await cameras?.close();
        await link.close();
      })();
      return closing;
    },
  };
}
