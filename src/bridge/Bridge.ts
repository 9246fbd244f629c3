import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Cameras } from "../cameras/Cameras.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { loadConfig } from "../config/loadConfig.js";
import { ArmbridgeError, asArmbridgeError } from "../errors.js";
import { checkApprovalAnswerable, type OperatorSurface } from "../executor/operator/approvalRules.js";
import type { Executor, ExecutorEvent } from "../executor/Executor.js";
import { composeExecutor } from "./composeExecutor.js";
import { readArmRecordFile } from "../ledger/ArmBinding.js";
import { IntentLedger } from "../ledger/IntentLedger.js";
import type { LedgerLoss } from "../ledger/LedgerFileWatch.js";
import { readOwnerFile } from "../ledger/LedgerOwner.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { ToolMetrics } from "../executor/calls/ToolMetrics.js";
import { reportEnvelope } from "../safety/reportEnvelope.js";
import { createDefaultTools } from "../tools/defaultTools.js";
import type { ToolRegistry } from "../executor/toolContract/ToolRegistry.js";
import type { Transport } from "../transport/Transport.js";
import { freshPoseOf } from "../cameras/freshPose.js";
import { imagesAfterMotion } from "../cameras/imagesAfterMotion.js";
import { bindLedgerToArm, type OtherArmPolicy } from "./bindLedgerToArm.js";
import { createTransport, type CreatedTransport, type TransportChoice } from "./createTransport.js";
import { defaultDataDir } from "./defaultDataDir.js";
import type { CallResponse, FunctionCall } from "../executor/calls/CallResult.js";
import type { ExecuteOptions } from "../executor/Executor.js";
import type { ToolDefinition } from "../executor/toolContract/ToolDefinition.js";
import type {
  ActionHistory,
  ArmWatch,
  BridgeState,
  HostedBridgePort,
  OperatorFace,
  ToolCatalogue,
} from "./BridgePort.js";
import { bridgeStateOf } from "./bridgeStateOf.js";
import { operatorFaceOf } from "./operatorFaceOf.js";

export interface BridgeOptions {
  /** An arm config, or the path of one; default: the simulated arm in config/sim-arm.yaml. */
  readonly config?: ArmConfig | string | undefined;
  readonly transport: TransportChoice;
  /**
   * Folder of the intent ledger (`ledger.sqlite`); ":memory:" for a throwaway
   * ledger. Default: `defaultDataDir(<arm name>)`, a per-user state folder
   * that does not depend on the working directory. Resolved to an absolute path.
   */
  readonly dataDir?: string | undefined;
  /** A ledger recorded against another arm: refuse to start (default), or adopt it on an operator's word. */
  readonly otherArm?: OtherArmPolicy | undefined;
  /** Environment for the default data folder (XDG_STATE_HOME, HOME). Default process.env. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  readonly logger?: Logger | undefined;
  /** How long to wait for the arm's first status. Default 10 s. */
  readonly openTimeoutMs?: number | undefined;
  /** Replace the default tools (library users adding their own). */
  readonly registry?: ToolRegistry | undefined;
  /** How often the ledger file is checked for deletion or replacement between intents. Default 1000 ms. */
  readonly ledgerCheckMs?: number | undefined;
  /**
   * Whether operators can reach this bridge to approve calls (an HTTP API and
   * console). Default present; a surface without one says `none`, and a
   * config with approval gates is then refused at start
   * (ARMB_ERR_APPROVAL_UNANSWERABLE) before the ledger or the arm is touched.
   */
  readonly operatorSurface?: OperatorSurface | undefined;
}

/**
 * The composition root: config → ledger → transport → tools → executor.
 * Every surface (HTTP, MCP, CLI, agent loop) drives one Bridge.
 *
 * The ledger opens before the transport, so a damaged ledger — or one another
 * bridge holds — stops the bridge before it can talk to the arm; the ledger is
 * checked to belong to this arm, then crashed `started` actions are reconciled
 * against the arm before the first new call is taken.
 */
export class Bridge implements HostedBridgePort {
  readonly config: ArmConfig;
  readonly ledger: IntentLedger;
  readonly transport: Transport;
  readonly registry: ToolRegistry;
  readonly metrics: ToolMetrics;
  readonly executor: Executor;
  readonly logger: Logger;
  /** The configured cameras (config `cameras:`), opened on this bridge's transport. */
  readonly cameras: Cameras;
  /** The absolute folder of the ledger, or ":memory:". */
  readonly dataDir: string;
  /** Things an operator must read at start (a fresh ledger where records were expected, an adopted ledger); surfaces print them on stderr. */
  readonly startupWarnings: readonly string[];
  readonly #ledgerWatch: NodeJS.Timeout | undefined;
  /** Closes the transport and whatever hosts it (a ROS host's node). */
  readonly #closeArm: () => Promise<void>;
  #closed = false;
  #operator: OperatorFace | undefined;

  private constructor(parts: {
    config: ArmConfig;
    ledger: IntentLedger;
    transport: Transport;
    closeArm: () => Promise<void>;
    registry: ToolRegistry;
    metrics: ToolMetrics;
    executor: Executor;
    logger: Logger;
    cameras: Cameras;
    dataDir: string;
    startupWarnings: readonly string[];
    ledgerCheckMs: number;
  }) {
    this.config = parts.config;
    this.ledger = parts.ledger;
    this.transport = parts.transport;
    this.#closeArm = parts.closeArm;
    this.registry = parts.registry;
    this.metrics = parts.metrics;
    this.executor = parts.executor;
    this.logger = parts.logger;
    this.cameras = parts.cameras;
    this.dataDir = parts.dataDir;
    this.startupWarnings = parts.startupWarnings;
    if (parts.dataDir !== ":memory:") {
      // Between intents too, so /healthz and the console say it while no one is calling.
      this.#ledgerWatch = setInterval(() => this.ledger.checkFile(), parts.ledgerCheckMs);
      this.#ledgerWatch.unref();
    }
  }

  /** The start-up story; each "startup" debug mark ends a stretch that `npm run bench:startup` times. */
  static async start(options: BridgeOptions): Promise<Bridge> {
    const logger = options.logger ?? silentLogger;
    const fileConfig = typeof options.config === "object" ? options.config : loadConfig(options.config);
    checkApprovalAnswerable(fileConfig, options.operatorSurface ?? { kind: "present" });
    const dataDir = dataDirOf(options, fileConfig);
    const { ledger, startupWarnings } = openLedger(dataDir, logger);
    const startup = logger.child({ component: "startup" });
    startup.debug("ledger open");
    let created: CreatedTransport | undefined;
    let cameras: Cameras | undefined;
    try {
      created = await createTransport(fileConfig, options.transport, logger, {
        configLabel: typeof options.config === "string" ? options.config : "FILE",
      });
      const { transport, config } = created;
      checkKinematicsReachable(created);
      reportEnvelope(config, logger);
      startup.debug("kinematics and envelope loaded");
      await openArmLink(transport, options.openTimeoutMs ?? 10_000);
      startup.debug("arm link open");
      // Before the executor exists: it loads the quarantine and judges unknown rows against this arm's statuses.
      const adopted = bindLedgerToArm(
        ledger,
        { name: config.arm.name, identity: transport.identity?.arm() },
        { policy: options.otherArm ?? "refuse", logger },
      );
      if (adopted) startupWarnings.push(adopted);
      cameras = openCameras(created, logger);
      const { registry, metrics, executor } = buildExecutor(created, cameras, ledger, logger, options.registry);
      startup.debug("executor built");
      await reconcileLeftovers(executor, logger);
      startup.debug("ledger reconciled");
      const arm = created;
      return new Bridge({
        config,
        ledger,
        transport,
        closeArm: () => arm.close(),
        registry,
        metrics,
        executor,
        logger,
        cameras,
        dataDir,
        startupWarnings,
        ledgerCheckMs: options.ledgerCheckMs ?? 1000,
      });
    } catch (error) {
      cameras?.close();
      await created?.close().catch(() => undefined);
      ledger.close();
      throw error instanceof ArmbridgeError ? error : asArmbridgeError(error);
    }
  }

  /*
   * The door (BridgePort.ts): what surfaces ask of this bridge. The parts
   * above stay public for library users who compose their own.
   */

  execute(calls: readonly FunctionCall[], options?: ExecuteOptions): Promise<CallResponse[]> {
    return this.executor.execute(calls, options);
  }

  get tools(): ToolCatalogue<ToolDefinition> {
    return this.registry;
  }

  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    return this.executor.onEvent(listener);
  }

  attach(callId: string): Promise<CallResponse | undefined> {
    return this.executor.attach(callId);
  }

  /** Approvals, presence, halt and release, confirm, servo recovery: what a person does. */
  get operator(): OperatorFace {
    return (this.#operator ??= operatorFaceOf(this.executor, this.transport));
  }

  state(): BridgeState {
    return bridgeStateOf(this.transport, this.executor, this.ledger);
  }

  get actions(): ActionHistory {
    return this.ledger;
  }

  get arm(): ArmWatch {
    return this.transport;
  }

  /** Ends the waits of calls under way: they answer, their motions go on and are settled by observation or at the next start. */
  endWaits(): void {
    this.executor.close();
  }

  /** Set once the ledger file was deleted or replaced under the running bridge: motion is refused from then on. */
  ledgerLoss(): LedgerLoss | undefined {
    return this.ledger.checkFile();
  }

  /** Ends observation, closes the transport and the ledger. Motions already sent are not stopped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#ledgerWatch);
    this.executor.close();
    // Before the transport: a ROS camera's subscription lives on the ROS host's node.
    this.cameras.close();
    await this.#closeArm();
    this.ledger.close();
  }
}

/** The ledger's folder, absolute, or ":memory:". */
function dataDirOf(options: BridgeOptions, config: ArmConfig): string {
  const given = options.dataDir ?? defaultDataDir(config.arm.name, options.env);
  return given === ":memory:" ? given : resolve(given);
}

/** Opens (or creates) the ledger in `dataDir`, warning when a new one replaces one that went missing. */
function openLedger(dataDir: string, logger: Logger): { ledger: IntentLedger; startupWarnings: string[] } {
  const ledgerPath = dataDir === ":memory:" ? ":memory:" : join(dataDir, "ledger.sqlite");
  const startupWarnings: string[] = [];
  const expected = ledgerPath === ":memory:" ? undefined : missingLedgerEvidence(ledgerPath);
  const ledger = IntentLedger.open(ledgerPath, { logger });
  if (expected) {
    startupWarnings.push(expected);
    logger.warn({ path: ledgerPath }, expected);
  }
  return { ledger, startupWarnings };
}

/** `kinematics: moveit` needs MoveIt's IK service, which only a ROS 2 transport with MoveIt brings. */
function checkKinematicsReachable(created: CreatedTransport): void {
  if (created.config.kinematics === "moveit" && !created.remoteIk)
    throw new ArmbridgeError("ARMB_ERR_KINEMATICS_UNAVAILABLE", {
      what: "kinematics: moveit (MoveIt's compute_ik service)",
    });
}

/** Opens the link and waits for the arm's first status, giving up after `timeoutMs`. */
async function openArmLink(transport: Transport, timeoutMs: number): Promise<void> {
  const opening = new AbortController();
  const timer = setTimeout(() => opening.abort(), timeoutMs);
  try {
    await transport.open(opening.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The configured cameras, posed by the arm's fresh status. */
function openCameras(created: CreatedTransport, logger: Logger): Cameras {
  const poses = freshPoseOf(created.transport);
  return new Cameras({
    config: created.config,
    pose: poses.latest,
    freshPose: poses.fresh,
    imageTopics: created.imageTopics,
    logger,
  });
}

/** The tools (the given registry, or the default ones), their metrics, and the executor that runs them. */
function buildExecutor(
  created: CreatedTransport,
  cameras: Cameras,
  ledger: IntentLedger,
  logger: Logger,
  given: ToolRegistry | undefined,
): { registry: ToolRegistry; metrics: ToolMetrics; executor: Executor } {
  const { config, transport, remoteIk } = created;
  const registry = given ?? createDefaultTools(config, { cameras, remoteIk });
  const metrics = new ToolMetrics({ isKnownTool: (name) => registry.get(name) !== undefined });
  const executor = composeExecutor({
    config,
    registry,
    transport,
    ledger,
    logger,
    metrics,
    imagesAfterMotion: imagesAfterMotion(config, cameras, logger),
  });
  return { registry, metrics, executor };
}

/** Settles the actions a previous run left `started`, against the arm, before the first new call is taken. */
async function reconcileLeftovers(executor: Executor, logger: Logger): Promise<void> {
  const reconciled = await executor.reconcile();
  if (reconciled.length)
    logger.warn(
      { actions: reconciled.map((r) => ({ action_id: r.actionId, state: r.state })) },
      "reconciled actions left started by a previous run",
    );
}

/**
 * A warning when there is no ledger at `ledgerPath` although this folder
 * shows an arm kept its records here (its arm record or an owner file is
 * left): a new, empty ledger is about to replace one that went missing.
 */
function missingLedgerEvidence(ledgerPath: string): string | undefined {
  if (existsSync(ledgerPath)) return undefined;
  const arm = readArmRecordFile(ledgerPath);
  const owner = readOwnerFile(ledgerPath);
  if (!arm && !owner) return undefined;
  const trace = arm
    ? `arm ${JSON.stringify(arm.name)} has kept its records here since ${arm.boundAt}`
    : `a bridge (pid ${owner?.pid}) held a ledger here since ${owner?.since}`;
  return `NO INTENT LEDGER at ${ledgerPath}, although ${trace}. A NEW, EMPTY LEDGER was created: any unresolved (unknown) motions recorded before are forgotten and their joints are no longer quarantined. If the ledger was moved or deleted by mistake, stop this bridge now and put ledger.sqlite (with its -wal file) back.`;
}
