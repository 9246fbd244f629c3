import type { ServerResponse } from "node:http";
import type { Bridge } from "../../bridge/Bridge.js";
import type { ExecutorEvent } from "../../executor/Executor.js";
import { actionView } from "./actionView.js";
import { armStateView } from "./armStateView.js";

export interface EventStreamHubOptions {
  /** At most one `state` event per this many ms: statuses arrive at 50 Hz, a screen needs far fewer. */
  readonly stateIntervalMs?: number;
  /** A comment line this often keeps proxies and idle-socket reapers from cutting the stream. */
  readonly heartbeatMs?: number;
}

/**
 * Fans executor events and (throttled) arm state out to every open
 * Server-Sent Events stream of GET /v1/events. One subscription to the bridge
 * however many clients; `close()` ends every stream so the server can stop.
 *
 * Event names: `state` (same shape as GET /v1/state) and `executor` (an
 * ExecutorEvent, with an `action_resolved` row as an ActionView).
 */
export class EventStreamHub {
  readonly #bridge: Bridge;
  readonly #clients = new Set<ServerResponse>();
  readonly #stateIntervalMs: number;
  readonly #heartbeatMs: number;
  readonly #unsubscribe: Array<() => void>;
  #stateTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastStateAt = 0;
  #closed = false;

  constructor(bridge: Bridge, options: EventStreamHubOptions = {}) {
    this.#bridge = bridge;
    this.#stateIntervalMs = options.stateIntervalMs ?? 200;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#unsubscribe = [
      bridge.onEvent((e) => this.#onExecutorEvent(e)),
      bridge.transport.onStatus(() => this.#scheduleState()),
    ];
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Takes over a raw response for the life of the stream. */
  attach(response: ServerResponse): void {
    if (this.#closed) {
      response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "ARMB_ERR_INTERNAL", message: "Internal error: the server is shutting down" } }));
      return;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    this.#clients.add(response);
    const detach = (): void => {
      this.#clients.delete(response);
      if (this.#clients.size === 0) this.#stopTimers();
    };
    // The response's close, not the request's: a GET's request emits 'close'
    // as soon as its (empty) body is read, long before the client goes away.
    response.on("close", detach);
    this.#write(response, "state", armStateView(this.#bridge));
    this.#heartbeat ??= setInterval(() => {
      for (const c of this.#clients) if (!c.writableEnded) c.write(": ping\n\n");
    }, this.#heartbeatMs);
  }

  /** Ends every stream and drops the bridge subscriptions. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const off of this.#unsubscribe) off();
    this.#stopTimers();
    for (const c of this.#clients) c.end();
    this.#clients.clear();
  }

  #onExecutorEvent(e: ExecutorEvent): void {
    if (this.#clients.size === 0) return;
    const data = e.type === "action_resolved" ? { type: e.type, action: actionView(e.row) } : e;
    this.#broadcast("executor", data);
    this.#scheduleState();
  }

  #scheduleState(): void {
    if (this.#clients.size === 0 || this.#stateTimer || this.#closed) return;
    const wait = Math.max(0, this.#lastStateAt + this.#stateIntervalMs - Date.now());
    this.#stateTimer = setTimeout(() => {
      this.#stateTimer = undefined;
      this.#lastStateAt = Date.now();
      if (this.#clients.size > 0) this.#broadcast("state", armStateView(this.#bridge));
    }, wait);
  }

  #broadcast(event: string, data: unknown): void {
    for (const c of this.#clients) this.#write(c, event, data);
  }

  #write(response: ServerResponse, event: string, data: unknown): void {
    if (response.writableEnded || response.destroyed) return;
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  #stopTimers(): void {
    clearTimeout(this.#stateTimer);
    this.#stateTimer = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}
