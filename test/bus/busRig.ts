import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import type { FaultRates } from "../../firmware-sim/faults.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import {
  createServoBusTransport,
  type ServoBusTransport,
  type ServoBusTransportOptions,
} from "../../src/transport/bus/index.js";
import type { BusProtocolName } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";

/** A bus simulator in this process, the servo-bus transport on it, and the effects it records. */
export interface BusRig {
  readonly sim: RunningBusSimulator;
  readonly transport: ServoBusTransport;
  readonly effects: MemoryEffects;
  readonly config: ArmConfig;
  /** An executor with an in-memory ledger on this transport, made on first use and closed with the rig. */
  executor(): Executor;
}

export interface BusRigOptions {
  readonly seed: number;
  readonly faults?: Partial<FaultRates>;
  readonly transport?: ServoBusTransportOptions;
  /** Open the transport before returning (default false: some tests judge what opening does). */
  readonly open?: boolean;
}

let open: Array<{ rig: BusRig; close(): Promise<void> }> = [];

export async function startBusRig(protocol: BusProtocolName, options: BusRigOptions): Promise<BusRig> {
  const config = busTestConfig(protocol, { observe: { budget_ms: 400, max_ms: 4000 } });
  const effects = new MemoryEffects();
  const sim = await startBusSimulator({
    bus: protocol,
    armConfig: config,
    link: "tcp",
    port: 0,
    seed: options.seed,
    effects,
    ...options.faults,
  });
  const transport = createServoBusTransport(config, sim.link, options.transport);
  let made: { executor: Executor; ledger: IntentLedger } | undefined;
  const rig: BusRig = {
    sim,
    transport,
    effects,
    config,
    executor() {
      if (!made) {
        const ledger = IntentLedger.open(":memory:");
        made = {
          ledger,
          executor: composeExecutor({ config, registry: createDefaultTools(config), transport, ledger }),
        };
      }
      return made.executor;
    },
  };
  open.push({
    rig,
    async close() {
      made?.executor.close();
      await transport.close();
      made?.ledger.close();
      await sim.close();
    },
  });
  if (options.open) await transport.open(AbortSignal.timeout(5000));
  return rig;
}

/** For afterEach: closes every rig started since the last call. */
export async function closeBusRigs(): Promise<void> {
  const rigs = open;
  open = [];
  for (const r of rigs) await r.close();
}
