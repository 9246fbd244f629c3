import { join } from "node:path";
import type { ArmConfig } from "../config/ArmConfig.js";
import { loadConfig } from "../config/loadConfig.js";
import { ArmbridgeError, asArmbridgeError } from "../errors.js";
import { Executor, type ExecutorEvent } from "../executor/Executor.js";
import { IntentLedger } from "../ledger/IntentLedger.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { ToolMetrics } from "../observability/ToolMetrics.js";
import { reportEnvelope } from "../safety/reportEnvelope.js";
import { createDefaultTools } from "../tools/defaultTools.js";
import type { ToolRegistry } from "../tools/ToolRegistry.js";
import type { Transport } from "../transport/Transport.js";
import { createTransport, type TransportChoice } from "./createTransport.js";

export interface BridgeOptions {
  /** An arm config, or the path of one; default: the simulated arm in config/sim-arm.yaml. */
  readonly config?: ArmConfig | string | undefined;
  readonly transport: TransportChoice;
  /** Folder of the intent ledger (`ledger.sqlite`); ":memory:" for a throwaway ledger. Default "./data". */
  readonly dataDir?: string | undefined;
  readonly logger?: Logger | undefined;
  /** How long to wait for the arm's first status. Default 10 s. */
  readonly openTimeoutMs?: number | undefined;
  /** Replace the default tools (library users adding their own). */
  readonly registry?: ToolRegistry | undefined;
}

/**
 * The composition root: config → ledger → transport → tools → executor.
 * Every surface (HTTP, MCP, CLI, agent loop) drives one Bridge.
 *
 * The ledger opens before the transport, so a damaged ledger stops the
 * bridge before it can talk to the arm; crashed `started` actions are
 * reconciled against the arm before the first new call is taken.
 */
export class Bridge {
  readonly config: ArmConfig;
  readonly ledger: IntentLedger;
  readonly transport: Transport;
  readonly registry: ToolRegistry;
  readonly metrics: ToolMetrics;
  readonly executor: Executor;
  readonly logger: Logger;
  #closed = false;

  private constructor(parts: { config: ArmConfig; ledger: IntentLedger; transport: Transport; registry: ToolRegistry; metrics: ToolMetrics; executor: Executor; logger: Logger }) {
    this.config = parts.config;
    this.ledger = parts.ledger;
    this.transport = parts.transport;
    this.registry = parts.registry;
    this.metrics = parts.metrics;
    this.executor = parts.executor;
    this.logger = parts.logger;
  }

  static async start(options: BridgeOptions): Promise<Bridge> {
    const logger = options.logger ?? silentLogger;
    const fileConfig = typeof options.config === "object" ? options.config : loadConfig(options.config);
    const dataDir = options.dataDir ?? "data";
    const ledger = IntentLedger.open(dataDir === ":memory:" ? ":memory:" : join(dataDir, "ledger.sqlite"), { logger });
    let transport: Transport | undefined;
    try {
      const created = await createTransport(fileConfig, options.transport, logger);
      transport = created.transport;
      const config = created.config;
      reportEnvelope(config, logger);
      const opening = new AbortController();
      const timer = setTimeout(() => opening.abort(), options.openTimeoutMs ?? 10_000);
      try {
        await transport.open(opening.signal);
      } finally {
        clearTimeout(timer);
      }
      const registry = options.registry ?? createDefaultTools(config);
      const metrics = new ToolMetrics();
      const executor = new Executor({ config, registry, transport, ledger, logger, metrics });
      const reconciled = await executor.reconcile();
      if (reconciled.length) logger.warn({ actions: reconciled.map((r) => ({ action_id: r.actionId, state: r.state })) }, "reconciled actions left started by a previous run");
      return new Bridge({ config, ledger, transport, registry, metrics, executor, logger });
    } catch (error) {
      await transport?.close().catch(() => undefined);
      ledger.close();
      throw error instanceof ArmbridgeError ? error : asArmbridgeError(error);
    }
  }

  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    return this.executor.onEvent(listener);
  }

  /** Ends observation, closes the transport and the ledger. Motions already sent are not stopped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.executor.close();
    await this.transport.close();
    this.ledger.close();
  }
}
