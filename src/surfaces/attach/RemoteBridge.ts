import { ArmbridgeError } from "../../errors.js";
import type {
  BridgePort,
  CallClient,
  CallResponse,
  ExecuteOptions,
  ExecutorEvent,
  FunctionCall,
  FunctionDeclaration,
} from "../../bridge/BridgePort.js";
import { silentLogger, type Logger } from "../../observability/logger.js";
import type { ArmStateView } from "../../wire/ArmStateView.js";
import { ROUTES } from "../../wire/routes.js";
import { ApiError, BAD_ANSWER_CODE } from "../../wire/client/ApiError.js";
import { RemoteEvents } from "./RemoteEvents.js";
import { RemoteExecutor } from "./RemoteExecutor.js";
import { RemoteToolCatalog } from "./RemoteToolCatalog.js";
import { connectToServe, type ServeConnection } from "./ServeHttp.js";

export interface RemoteBridgeOptions {
  /** The serve's base URL, `http://HOST:PORT`. */
  readonly url: string;
  readonly token: string;
  /** Who is calling: every motion is recorded on serve under it. */
  readonly client: CallClient;
  readonly logger?: Logger | undefined;
  /** How long a serve that went away is tried again before a run fails (ARMB_ERR_BRIDGE_LOST). */
  readonly reattachForMs?: number | undefined;
}

/** How long a call's answer waits for its `settled` event from the stream (which normally arrives first). */
const EVENT_ORDER_WAIT_MS = 1000;

/**
 * A running `armbridge serve` as an agent's bridge (`agent --bridge URL`):
 * the calls go to its executor over HTTP, its tools are the ones declared,
 * its progress events come from its event stream. The arm, the ledger, the
 * locks, the quarantine, the approvals and the operator console all stay in
 * serve; this process holds nothing that matters when it dies — a motion it
 * started is seen through by serve, and a run started again with the same
 * call ids gets the recorded results back.
 */
export class RemoteBridge implements BridgePort {
  readonly url: string;
  readonly tools: RemoteToolCatalog;
  readonly client: CallClient;
  readonly #http: ServeConnection;
  readonly #executor: RemoteExecutor;
  readonly #events: RemoteEvents;

  private constructor(parts: {
    url: string;
    http: ServeConnection;
    executor: RemoteExecutor;
    registry: RemoteToolCatalog;
    events: RemoteEvents;
    client: CallClient;
  }) {
    this.url = parts.url;
    this.#http = parts.http;
    this.#executor = parts.executor;
    this.tools = parts.registry;
    this.#events = parts.events;
    this.client = parts.client;
  }

  /** Serve's answers, each after its `settled` event came through the stream (so progress is told before the result). */
  async execute(calls: readonly FunctionCall[], options?: ExecuteOptions): Promise<CallResponse[]> {
    const watch = this.#events.watchSettled(calls.flatMap((c) => (typeof c.id === "string" ? [c.id] : [])));
    const responses = await this.#executor.execute(calls, options);
    await watch.until(EVENT_ORDER_WAIT_MS);
    return responses;
  }

  /** Reaches serve, reads its tools, and opens its event stream; throws ARMB_ERR_HTTP_UNREACHABLE / ARMB_ERR_HTTP_UNAUTHORIZED before any call. */
  static async connect(options: RemoteBridgeOptions): Promise<RemoteBridge> {
    if (!/^https?:\/\/[^/]+/.test(options.url))
      throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
        message: `--bridge must be the http(s) URL of a running serve, like http://127.0.0.1:8640 (got ${JSON.stringify(options.url)})`,
      });
    const log = (options.logger ?? silentLogger).child({ component: "remote_bridge" });
    const http = connectToServe(options.url, options.token);
    const serve = http.client;
    const events = new RemoteEvents(serve, log);
    try {
      const registry = new RemoteToolCatalog(await readTools(serve.url, () => serve.call("tools")), log);
      await events.open();
      const executor = new RemoteExecutor({
        http: serve,
        client: options.client,
        log,
        reattachForMs: options.reattachForMs,
      });
      log.info({ url: serve.url, tools: registry.names(), client: options.client }, "attached to serve");
      return new RemoteBridge({ url: serve.url, http, executor, registry, events, client: options.client });
    } catch (error) {
      await events.close();
      await http.close();
      throw error;
    }
  }

  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    return this.#events.onEvent(listener);
  }

  /** The arm as serve reported it last (its event stream's newest `state`). */
  get state(): ArmStateView | undefined {
    return this.#events.state;
  }

  /** The console of this serve, for people (the token is not known to it: serve printed it). */
  consoleUrl(token: string): string {
    return `${this.url}/console#token=${encodeURIComponent(token)}`;
  }

  async close(): Promise<void> {
    await this.#events.close();
    await this.#http.close();
  }
}

/** Serve's tools; a serve that refuses the token or answers outside the contract is reported before any call. */
async function readTools(
  url: string,
  read: () => Promise<{ functionDeclarations: readonly FunctionDeclaration[] }>,
): Promise<FunctionDeclaration[]> {
  const route = `${ROUTES.tools.method} ${ROUTES.tools.path}`;
  try {
    return [...(await read()).functionDeclarations];
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      throw new ArmbridgeError("ARMB_ERR_HTTP_UNAUTHORIZED", {}, { cause: error });
    if (error instanceof ApiError && error.code === BAD_ANSWER_CODE)
      throw new ArmbridgeError(
        "ARMB_ERR_BRIDGE_INCOMPATIBLE",
        { url, reason: `${route} did not list functionDeclarations` },
        { cause: error },
      );
    if (error instanceof ApiError)
      throw new ArmbridgeError(
        "ARMB_ERR_BRIDGE_INCOMPATIBLE",
        { url, reason: `${route} answered ${error.status} ${error.code}: ${error.message}` },
        { cause: error },
      );
    throw error;
  }
}
