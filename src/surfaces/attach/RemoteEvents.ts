import type { CallResult, ExecutorEvent } from "../../bridge/BridgePort.js";
import type { Logger } from "../../observability/logger.js";
import type { ExecutorEventView } from "../../wire/ExecutorEventView.js";
import type { ArmStateView } from "../../wire/ArmStateView.js";
import type { ServeHttp } from "./ServeHttp.js";
import { ApiError } from "../../wire/client/ApiError.js";
import { ROUTES, type CheckedEvent } from "../../wire/routes.js";
import type { StreamEvent } from "../../wire/client/readEventStream.js";

/** How long to wait before opening the event stream again after it dropped; doubles up to the last. */
const RECONNECT_MS = [250, 500, 1000, 2000, 5000] as const;

/**
 * The executor events of a running serve, from its `GET /v1/events` stream,
 * as the events an in-process bridge reports: what an attached agent's
 * progress lines and its Live session's motion log follow. Every client's
 * events arrive (the stream is the console's); listeners pick their calls by
 * id. `action_resolved` (an operator's word, a later observation) is not
 * passed on: it carries the ledger row as the API shows it, not as the
 * ledger holds it, and no agent reads it.
 *
 * The stream is opened again after it drops; events in the gap are lost
 * (progress only: every result comes back with its call).
 */
export class RemoteEvents {
  readonly #client: ServeHttp;
  readonly #log: Logger;
  readonly #listeners = new Set<(e: ExecutorEvent) => void>();
  readonly #stop = new AbortController();
  #state: ArmStateView | undefined;
  #running: Promise<void> | undefined;
  /** The stream is open (between a drop and its reopening it is not, and no event is worth waiting for). */
  #live = false;

  constructor(client: ServeHttp, log: Logger) {
    this.#client = client;
    this.#log = log;
  }

  /** Opens the stream; resolves once its first `state` event arrived (so no event of a call sent after it is missed). */
  async open(): Promise<void> {
    let ready: () => void = () => undefined;
    let failed: (e: unknown) => void = () => undefined;
    const first = new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    this.#running = this.#run(ready, failed);
    await first;
  }

  /** The newest `state` event (GET /v1/state's shape). */
  get state(): ArmStateView | undefined {
    return this.#state;
  }

  onEvent(listener: (e: ExecutorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts watching for the `settled` events of these call ids; `until(ms)`
   * resolves once all arrived or after `ms`. Serve writes a call's events to
   * the stream before it answers the call, but the two travel on different
   * connections: waiting for them keeps the in-process order (a call's
   * progress before its response) for whoever follows both.
   */
  watchSettled(callIds: readonly string[]): { until(ms: number): Promise<void> } {
    const missing = new Set(callIds);
    let wake: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (wake = resolve));
    const off = this.onEvent((e) => {
      if (e.type !== "settled" || !missing.delete(e.callId)) return;
      if (missing.size === 0) wake();
    });
    return {
      until: async (ms) => {
        if (missing.size === 0 || !this.#live) return off();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
        off();
      },
    };
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running?.catch(() => undefined);
  }

  /** The event checked against the wire contract; one that breaks it is said in the log and passed over, the stream goes on. */
  #check(block: StreamEvent): CheckedEvent | undefined {
    try {
      return this.#client.checkEvent(block);
    } catch (error) {
      this.#log.warn(
        { err: String(error) },
        "the bridge sent an event that breaks the wire contract; it is passed over",
      );
      return undefined;
    }
  }

  async #run(ready: () => void, failed: (e: unknown) => void): Promise<void> {
    let opened = false;
    let attempt = 0;
    while (!this.#stop.signal.aborted) {
      try {
        const stream = await this.#client.events(this.#stop.signal).catch((error: unknown) => {
          if (!(error instanceof ApiError)) throw error;
          throw new Error(`${ROUTES.events.method} ${ROUTES.events.path} answered HTTP ${error.status}`, {
            cause: error,
          });
        });
        attempt = 0;
        this.#live = true;
        for await (const block of stream) {
          const checked = this.#check(block);
          if (checked?.event === "state") {
            this.#state = checked.data;
            if (!opened) {
              opened = true;
              ready();
            }
          } else if (checked?.event === "executor") this.#emit(checked.data);
        }
      } catch (error) {
        this.#live = false;
        if (this.#stop.signal.aborted) return;
        // The first open must succeed: an agent should not start without its bridge's events.
        if (!opened) return failed(error);
        this.#log.warn(
          { err: String(error) },
          "the bridge's event stream dropped; opening it again (progress in the gap is lost, results are not)",
        );
      }
      this.#live = false;
      if (!opened) return failed(new Error("the event stream ended before its first state event"));
      const wait = RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)];
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#stop.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  #emit(view: ExecutorEventView): void {
    const event = toExecutorEvent(view);
    if (!event) return;
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch (error) {
        this.#log.error({ err: String(error) }, "event listener threw");
      }
    }
  }
}

/**
 * An SSE `executor` event as the in-process executor would have reported it
 * (`link_returned` included);
 * undefined for `action_resolved` and the halt latch's events (rows the serve
 * keeps: an attached agent follows its calls, and a halt reaches it in the
 * result of the motion it stopped or refused).
 */
export function toExecutorEvent(v: ExecutorEventView): ExecutorEvent | undefined {
  switch (v.type) {
    case "action_resolved":
    case "halted":
    case "halt_released":
      return undefined;
    case "settled":
      // The server built it from a CallResult; the view only checks the contract's own fields.
      return { ...v, client: v.client ?? undefined, result: v.result as CallResult };
    case "paced": {
      // The view writes an absent speedScaling as undefined; MotionPace leaves it out.
      const { speedScaling, ...pace } = v.pace;
      return {
        ...v,
        client: v.client ?? undefined,
        pace: speedScaling === undefined ? pace : { ...pace, speedScaling },
      };
    }
    case "link_returned": {
      // The view writes absent optional fields as undefined; LinkLoss leaves them out.
      const { returned_at, incarnation_changed, returned_detail, ...loss } = v.loss;
      return {
        type: v.type,
        incarnation: v.incarnation,
        reobserving: v.reobserving,
        loss: {
          ...loss,
          ...(returned_at === undefined ? {} : { returned_at }),
          ...(incarnation_changed === undefined ? {} : { incarnation_changed }),
          ...(returned_detail === undefined ? {} : { returned_detail }),
        },
      };
    }
    case "queued":
    case "started":
    case "timed_out":
    case "approval_requested":
    case "approval_resolved":
      return { ...v, client: v.client ?? undefined };
  }
}
