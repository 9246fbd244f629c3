import type { ServerResponse } from "node:http";
import { ArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import type { ExecutorEvent, HostedBridgePort } from "../../bridge/BridgePort.js";
import { splitImages } from "../splitImages.js";
import { actionView } from "./actionView.js";
import { haltView } from "./haltView.js";
import type { ExecutorEventView } from "../../wire/ExecutorEventView.js";
import { armStateView } from "./armStateView.js";

export interface EventStreamHubOptions {
  /** At most one `state` event per this many ms: statuses arrive at 50 Hz, a screen needs far fewer. */
  readonly stateIntervalMs?: number;
  /** A comment line this often keeps proxies and idle-socket reapers from cutting the stream. */
  readonly heartbeatMs?: number;
  /** Streams open at once; one more is refused with ARMB_ERR_HTTP_TOO_MANY_STREAMS (503). Default 16. */
  readonly maxStreams?: number;
  /**
   * Bytes a stream may have written but not yet handed to the kernel. A client
   * that does not read (a stuck tab, a paused socket) passes it and is
   * dropped; without a bound its backlog grows with every event for as long as
   * it stays connected. Default 1 MiB: far above what a reading client ever
   * holds, small enough that max_streams of them stay a few MB.
   */
  readonly maxBacklogBytes?: number;
  /** Drops are logged here (warn). */
  readonly logger?: Logger | undefined;
}

export const DEFAULT_MAX_EVENT_STREAMS = 16;
export const DEFAULT_MAX_STREAM_BACKLOG_BYTES = 1024 * 1024;

/**
 * Fans executor events and (throttled) arm state out to every open
 * Server-Sent Events stream of GET /v1/events. One subscription to the bridge
 * however many clients; `close()` ends every stream so the server can stop.
 *
 * Event names: `state` (same shape as GET /v1/state) and `executor` (an
 * ExecutorEvent, with an `action_resolved` row as an ActionView). `state`
 * is throttled to `stateIntervalMs`, except that a change of the arm link's
 * state is sent at once.
 *
 * Memory stays bounded whatever the clients do: at most `maxStreams`
 * streams, and each one's unsent backlog at most `maxBacklogBytes` (plus the
 * event that crossed it) before the stream is destroyed.
 */
export class EventStreamHub {
  readonly #bridge: HostedBridgePort;
  readonly #clients = new Set<ServerResponse>();
  readonly #stateIntervalMs: number;
  readonly #heartbeatMs: number;
  readonly #maxStreams: number;
  readonly #maxBacklogBytes: number;
  readonly #log: Logger | undefined;
  readonly #unsubscribe: Array<() => void>;
  #stateTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastStateAt = 0;
  #closed = false;

  constructor(bridge: HostedBridgePort, options: EventStreamHubOptions = {}) {
    this.#bridge = bridge;
    this.#stateIntervalMs = options.stateIntervalMs ?? 200;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#maxStreams = options.maxStreams ?? DEFAULT_MAX_EVENT_STREAMS;
    this.#maxBacklogBytes = options.maxBacklogBytes ?? DEFAULT_MAX_STREAM_BACKLOG_BYTES;
    this.#log = options.logger;
    this.#unsubscribe = [
      bridge.onEvent((e) => this.#onExecutorEvent(e)),
      bridge.arm.onStatus(() => this.#scheduleState()),
      // Not throttled: an operator must see a lost arm link within a second, not at the next status (there is none).
      bridge.arm.onLinkState(() => this.#sendStateNow()),
    ];
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Throws ARMB_ERR_HTTP_TOO_MANY_STREAMS when another stream would pass the cap; call before taking over the response. */
  admit(): void {
    if (this.#clients.size >= this.#maxStreams)
      throw new ArmbridgeError("ARMB_ERR_HTTP_TOO_MANY_STREAMS", { limit: this.#maxStreams });
  }

  /** Takes over a raw response for the life of the stream (after `admit()`). */
  attach(response: ServerResponse): void {
    if (this.#closed) {
      response.writeHead(503, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { code: "ARMB_ERR_INTERNAL", message: "Internal error: the server is shutting down" },
        }),
      );
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
      for (const c of this.#clients) this.#send(c, ": ping\n\n");
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
    // Presence is part of the state, not a call's story: the consoles get the state that says it, now.
    if (e.type === "presence_changed") return this.#sendStateNow();
    this.#broadcast("executor", eventView(e));
    // A halt latched or released is news an operator needs now, not at the next throttle.
    if (e.type === "halted" || e.type === "halt_released") this.#sendStateNow();
    else this.#scheduleState();
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

  #sendStateNow(): void {
    if (this.#clients.size === 0 || this.#closed) return;
    clearTimeout(this.#stateTimer);
    this.#stateTimer = undefined;
    this.#lastStateAt = Date.now();
    this.#broadcast("state", armStateView(this.#bridge));
  }

  /** Serialised once for every stream: per client it would be max_streams copies of garbage per event. */
  #broadcast(event: string, data: unknown): void {
    const text = sseFrame(event, data);
    for (const c of this.#clients) this.#send(c, text);
  }

  #write(response: ServerResponse, event: string, data: unknown): void {
    this.#send(response, sseFrame(event, data));
  }

  /**
   * Writes, then drops the client if what it has not taken yet passed the
   * bound. `writableLength` counts both the response's and its socket's
   * buffers: everything this process holds for that client.
   */
  #send(response: ServerResponse, text: string): void {
    if (response.writableEnded || response.destroyed) return;
    response.write(text);
    const backlog = response.writableLength;
    if (backlog <= this.#maxBacklogBytes) return;
    this.#clients.delete(response);
    if (this.#clients.size === 0) this.#stopTimers();
    this.#log?.warn(
      { backlog_bytes: backlog, limit_bytes: this.#maxBacklogBytes, remote: response.socket?.remoteAddress },
      "dropped an event stream whose client stopped reading",
    );
    // destroy, not end: end() would queue the close behind the backlog it cannot send.
    response.destroy();
  }

  #stopTimers(): void {
    clearTimeout(this.#stateTimer);
    this.#stateTimer = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

function eventView(e: Exclude<ExecutorEvent, { readonly type: "presence_changed" }>): ExecutorEventView {
  switch (e.type) {
    case "action_resolved":
      return { type: e.type, action: actionView(e.row) };
    // Camera pictures stay out of the event stream: a description each, not the bytes (tens of kB per frame, to every console).
    case "settled":
      return {
        ...e,
        client: e.client ?? null,
        result: splitImages(e.result, "only in the call's own response").result,
      };
    case "halted":
      return { type: e.type, halt: haltView(e.halt) };
    case "halt_released":
      return { type: e.type, halts: e.halts.map(haltView) };
    case "link_returned":
      return {
        type: e.type,
        loss: e.loss,
        reobserving: e.reobserving,
        ...(e.incarnation === undefined ? {} : { incarnation: e.incarnation }),
      };
    case "queued":
    case "started":
    case "timed_out":
    case "paced":
    case "approval_requested":
    case "approval_resolved":
      return { ...e, client: e.client ?? null };
  }
}

function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
