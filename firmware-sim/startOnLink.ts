import type { Logger } from "pino";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { realClock, type Clock } from "./Clock.js";
import { EffectsLog, type EffectsSink } from "./EffectsLog.js";
import { FaultPlan } from "./faults.js";
import type { ByteStreamEndpoint, DeviceLink } from "./links/DeviceLink.js";
import { startPtyLink } from "./links/ptyLink.js";
import { startRfc2217Link } from "./links/rfc2217Link.js";
import { startTcpLink } from "./links/tcpLink.js";
import type { SimOptions } from "./simOptions.js";

/** What both simulators (serial firmware, servo bus) take besides their own options. */
export interface SimStartOptions extends Partial<SimOptions> {
  /** An already-loaded arm config; wins over `config` (a path). */
  readonly armConfig?: ArmConfig;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Where effects go when there is no `effectsLog` path (tests keep them in memory). */
  readonly effects?: EffectsSink;
  /** Called if the link dies on its own (socat killed); the simulator is unusable afterwards. */
  readonly onFatal?: (reason: string) => void;
}

/** The pieces every simulated device is built from, resolved from the options once. */
export interface SimParts {
  readonly config: ArmConfig;
  readonly clock: Clock;
  readonly plan: FaultPlan;
  readonly effects: EffectsSink;
  readonly logger: Logger;
}

/** A device built from the parts: the endpoint the link feeds, and how to stop its timers. */
export interface BuiltDevice<E extends ByteStreamEndpoint> {
  readonly endpoint: E;
  close(): void;
}

export interface DeviceOnLink<E extends ByteStreamEndpoint> {
  readonly link: DeviceLink;
  readonly endpoint: E;
  readonly parts: SimParts;
  /** Stops the device, the effects log and the link (and socat); idempotent. */
  close(): Promise<void>;
}

/**
 * The start-up both simulators share: config, clock, the seeded fault plan,
 * the effects log, then the device behind a PTY (socat) or TCP link — and,
 * if the link cannot start, the device and its log closed again so no timer
 * or file handle outlives the failure.
 */
export async function startOnLink<E extends ByteStreamEndpoint>(
  options: SimStartOptions,
  logger: Logger,
  build: (parts: SimParts) => BuiltDevice<E>,
): Promise<DeviceOnLink<E>> {
  const config = options.armConfig ?? loadConfig(...(options.config === undefined ? [] : [options.config]));
  const plan = new FaultPlan(options.seed ?? 1, {
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
  const parts: SimParts = { config, clock: options.clock ?? realClock(), plan, effects, logger };
  let device: BuiltDevice<E>;
  try {
    device = build(parts);
  } catch (error) {
    fileLog?.close();
    throw error;
  }
  const shutdownParts = (): void => {
    device.close();
    fileLog?.close();
  };
  let link: DeviceLink;
  try {
    const kind = options.link ?? "tcp";
    link =
      kind === "pty"
        ? await startPtyLink({
            endpoint: device.endpoint,
            logger,
            onFatal: options.onFatal ?? ((reason) => logger.error({ reason }, "link lost")),
          })
        : kind === "rfc2217"
          ? await startRfc2217Link({ port: options.port ?? 0, endpoint: device.endpoint, logger })
          : await startTcpLink({ port: options.port ?? 0, endpoint: device.endpoint, logger });
  } catch (error) {
    shutdownParts();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    link,
    endpoint: device.endpoint,
    parts,
    close() {
      closing ??= (async () => {
        shutdownParts();
        await link.close();
      })();
      return closing;
    },
  };
}
