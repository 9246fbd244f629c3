import { actuatorsOf } from "../src/config/actuators.js";
import { createLogger } from "../src/observability/logger.js";
import { DeviceSession } from "./DeviceSession.js";
import { SimulatedArm } from "./SimulatedArm.js";
import { startCameraServer, type CameraServer } from "./cameraServer.js";
import { startOnLink, type SimStartOptions } from "./startOnLink.js";

export const FIRMWARE_VERSION = "armbridge-sim 0.1.0";

export type StartSimulatorOptions = SimStartOptions;

export interface RunningSimulator {
  /** What a bridge opens: tcp://127.0.0.1:PORT or the PTY path. */
  readonly link: string;
  readonly arm: SimulatedArm;
  /** The camera snapshot URL, with `cameraPort`. */
  readonly camera?: string;
  /** The wire goes away for `ms`, the arm running on (--link tcp only): see DeviceLink.interrupt. */
  interruptLink(ms: number, onBack?: (at: number) => void): Promise<void>;
  /** Stops streaming, closes the link (and socat) and the effects log; idempotent. */
  close(): Promise<void>;
}

/** Starts firmware-sim in this process: the device model, its session, and a link. `main.ts` is a thin CLI over this. */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const logger = (options.logger ?? createLogger()).child({ component: "firmware-sim" });
  let arm: SimulatedArm | undefined;
  const running = await startOnLink(options, logger, ({ config, clock, plan, effects }) => {
    const simArm = new SimulatedArm({
      axes: actuatorsOf(config),
      clock,
      faults: plan,
      effects,
      motionTime: options.motionTime ?? { kind: "profile" },
      logger,
      ...(options.stallJoints === undefined ? {} : { stallJoints: options.stallJoints }),
      ...(options.powerLossJoints === undefined ? {} : { powerLossJoints: options.powerLossJoints }),
      ...(options.powerLossMs === undefined ? {} : { powerLossMs: options.powerLossMs }),
    });
    arm = simArm;
    const session = new DeviceSession({
      arm: simArm,
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
    return {
      endpoint: session,
      close() {
        session.close();
        simArm.close();
      },
    };
  });
  const simArm = arm!;
  // Firmware on a USB board vanishes from the host while it has no power: on --link tcp the
  // host's connection drops for the outage; a PTY pair cannot be cut, so there the device is only deaf.
  simArm.onPowerLoss((outageMs) => {
    running.link
      .interrupt(outageMs)
      .catch((error: unknown) => logger.info({ err: String(error) }, "power loss: link kept (PTY)"));
  });
  // Snapshots drawn from the simulator's true joints (not what a bridge was told), served as an IP camera would.
  let cameras: CameraServer | undefined;
  if (options.cameraPort !== undefined) {
    try {
      cameras = await startCameraServer({
        config: running.parts.config,
        port: options.cameraPort,
        positions: () => simArm.positionsByName(),
        logger,
      });
    } catch (error) {
      await running.close();
      throw error;
    }
  }
  logger.info(
    { link: running.link.url, seed: running.parts.plan.seed, boot_id: simArm.bootId, camera: cameras?.url },
    "simulator ready",
  );
  let closing: Promise<void> | undefined;
  return {
    link: running.link.url,
    arm: simArm,
    ...(cameras ? { camera: cameras.url } : {}),
    interruptLink: (ms, onBack) => running.link.interrupt(ms, onBack),
    close() {
      closing ??= (async () => {
        await cameras?.close();
        await running.close();
      })();
      return closing;
    },
  };
}
