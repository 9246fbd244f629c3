import { setTimeout as sleep } from "node:timers/promises";
import type {
  GoogleGenAI,
  LiveConnectConfig,
  LiveSendClientContentParameters,
  LiveSendRealtimeInputParameters,
  LiveSendToolResponseParameters,
  LiveServerMessage,
} from "@google/genai";
import { ArmbridgeError } from "../../errors.js";
import { backoffDelayMs, type Backoff } from "./backoffDelayMs.js";
import { LiveLink, type LinkEnd, type SetupFailure } from "./LiveLink.js";
import type { LinkLossCause, ModelLinkEvent, SessionStart } from "./ModelLinkEvent.js";
import { parseDurationMs } from "./parseDurationMs.js";

export interface ReconnectPolicy {
  /** Connection attempts in a row that may fail (transiently) before the run fails. Each success starts the count again. */
  readonly attempts: number;
  /** The delay before each further attempt; the first follows the loss at once. */
  readonly backoff: Backoff;
  /** How long a connection may take from the socket to setupComplete before the attempt counts as failed. */
  readonly setupTimeoutMs: number;
  /** After goAway {timeLeft}, leave at the latest this long before the server's close. */
  readonly goAwayMarginMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  attempts: 10,
  backoff: { initialMs: 250, maxMs: 10_000 },
  setupTimeoutMs: 15_000,
  goAwayMarginMs: 2_000,
};

/** A message sent that no resumable handle is known to hold. */
export interface UnconfirmedSend<R> {
  readonly record: R;
  /** The model said something after it was sent on the lost connection: it had read it (the server handles a connection's messages in order). */
  readonly answered: boolean;
}

/** What the session learnt when a connection ended, for the conversation to account for. */
export interface SessionLoss<R> {
  readonly cause: LinkLossCause;
  readonly detail: string;
  /**
   * What was sent since the newest resumable handle: the session the next
   * connection resumes may not contain it. Empty when there is no handle
   * (a fresh session follows; it is told the run from the ledger).
   */
  readonly unconfirmed: readonly UnconfirmedSend<R>[];
  readonly handle: string | undefined;
}

export interface ResumableLiveSessionOptions<R> {
  readonly ai: Pick<GoogleGenAI, "live">;
  readonly model: string;
  /** The setup of a connection, offering `handle` when resuming. */
  readonly config: (handle: string | undefined) => LiveConnectConfig;
  readonly policy?: ReconnectPolicy | undefined;
  /** The run: no reconnect outlives it. */
  readonly signal: AbortSignal;
  /** True while a function call awaits its response: leaving after a goAway waits for it (within timeLeft). */
  readonly busy: () => boolean;
  readonly now?: (() => number) | undefined;
  readonly random?: (() => number) | undefined;
  readonly on: {
    /** A server message other than resumption updates and goAway (those are the session's own business, reported through `event`). */
    message(message: LiveServerMessage): void;
    /** A connection ended; a replacement is on its way. */
    lost(loss: SessionLoss<R>): void;
    /** A connection is up: "first" at the start, then "resumed" (from a handle) or "fresh" (no handle, or the resume refused). */
    opened(start: "first" | SessionStart): void;
    /** For the transcript and progress lines. */
    event(event: ModelLinkEvent): void;
    /** A resumable handle arrived (transcript). */
    handle(handle: string): void;
    /** The model's first output after something we sent: latency in ms. */
    answered(latencyMs: number): void;
    /** No connection could be made: the run cannot go on. */
    failed(error: ArmbridgeError): void;
  };
}

/**
 * A Live session that outlives its connections (connection/resumption).
 * Live connections are short-lived by design: about 10 minutes each, ended
 * by the server with a `goAway {timeLeft}` first
 * (https://ai.google.dev/gemini-api/docs/live-session, "GoAway message").
 * This keeps the newest handle of a `sessionResumptionUpdate` that said
 * `resumable: true` (@google/genai `LiveServerSessionResumptionUpdate
 * {newHandle, resumable}`), leaves after a goAway before `timeLeft` runs out
 * (as soon as no call is open, else at `timeLeft − goAwayMarginMs`),
 * reconnects at once after an unexpected close and then with a bounded,
 * jittered back-off, and starts a fresh session when the server refuses
 * the handle. Any number of reconnects: only `policy.attempts` failures in
 * a row end the run.
 *
 * It also keeps what was sent that the newest resumable handle may not hold
 * (records of type R, the conversation's own): the server resumes from the
 * handle's state, so on a loss those are handed back as `unconfirmed`, each
 * saying whether the model had read it on the lost connection. The Gemini
 * Developer API offers no `lastConsumedClientMessageIndex` to say which
 * messages a handle holds (the SDK allows `transparent` only on Vertex), so
 * a message counts as held once the model has said something after it was
 * sent (it was consumed: the server handles a connection's messages in
 * order) and a resumable handle has arrived after that. A handle that merely
 * arrives after the send may have been made before the server read it.
 */
export class ResumableLiveSession<R> {
  readonly #options: ResumableLiveSessionOptions<R>;
  readonly #policy: ReconnectPolicy;
  readonly #now: () => number;
  #link: LiveLink | undefined;
  #handle: string | undefined;
  /** What was sent and may not be in the state of the newest handle; `answered`: the model has said something since. */
  #outbox: { readonly record: R; answered: boolean }[] = [];
  #leaveTimer: NodeJS.Timeout | undefined;
  #sentAt: number | undefined;
  /** Connections in a row that ended before the server said anything: they back off like failed attempts. */
  #flaps = 0;
  #closed = false;
  #reconnecting: Promise<void> | undefined;
  /** The run's signal, or our own close(): ends a setup or back-off wait at once. */
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;

  constructor(options: ResumableLiveSessionOptions<R>) {
    this.#options = options;
    this.#policy = options.policy ?? DEFAULT_RECONNECT_POLICY;
    this.#now = options.now ?? Date.now;
    this.#signal = AbortSignal.any([options.signal, this.#stop.signal]);
  }

  /** A connection is up and may be sent on. */
  get connected(): boolean {
    return this.#link !== undefined && !this.#link.ended;
  }

  /** The first connection. Failures are reported through `on.failed`. */
  start(): void {
    this.#track(this.#connect({ cause: "closed", since: this.#now(), first: true }));
  }

  /** Sends in a clientContent message; `record` is kept until a resumable handle covers it. False when not connected (nothing sent). */
  sendClientContent(params: LiveSendClientContentParameters, record?: R): boolean {
    return this.#send((l) => l.sendClientContent(params), record, true);
  }

  sendToolResponse(params: LiveSendToolResponseParameters, record?: R): boolean {
    return this.#send((l) => l.sendToolResponse(params), record, true);
  }

  /** Realtime input (video frames): not kept — a frame lost with a connection is simply the past. */
  sendRealtimeInput(params: LiveSendRealtimeInputParameters): boolean {
    return this.#send((l) => l.sendRealtimeInput(params), undefined, false);
  }

  /** The run is over: no more reconnects; resolves once any reconnect under way has stopped. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    clearTimeout(this.#leaveTimer);
    this.#link?.close();
    this.#link = undefined;
    await this.#reconnecting;
  }

  #send(send: (link: LiveLink) => void, record: R | undefined, expectsAnswer: boolean): boolean {
    const link = this.#link;
    if (link === undefined || link.ended) return false;
    try {
      send(link);
    } catch {
      // The socket went between the check and the send: its close event follows and replaces it.
      return false;
    }
    if (record !== undefined) this.#outbox.push({ record, answered: false });
    if (expectsAnswer) this.#sentAt ??= this.#now();
    return true;
  }

  #onMessage(link: LiveLink, message: LiveServerMessage): void {
    if (link !== this.#link || this.#closed) return;
    const update = message.sessionResumptionUpdate;
    if (update) {
      if (update.resumable === true && typeof update.newHandle === "string" && update.newHandle !== "") {
        this.#handle = update.newHandle;
        this.#outbox = this.#outbox.filter((e) => !e.answered);
        this.#options.on.handle(update.newHandle);
        if (link.goAwayReceived) this.#leaveIfCalm();
      }
    }
    if (message.goAway) this.#onGoAway(link, message.goAway.timeLeft);
    if (message.toolCall || message.serverContent?.modelTurn || message.serverContent?.turnComplete) {
      if (this.#sentAt !== undefined) this.#options.on.answered(this.#now() - this.#sentAt);
      this.#sentAt = undefined;
      for (const e of this.#outbox) e.answered = true;
      // With no handle yet, the first one to come covers everything answered before it.
      if (this.#handle === undefined) this.#outbox = this.#outbox.filter((e) => !e.answered);
    }
    if (message.toolCall || message.toolCallCancellation || message.serverContent || message.setupComplete)
      this.#options.on.message(message);
  }

  #onGoAway(link: LiveLink, timeLeft: string | undefined): void {
    if (link.goAwayReceived) return;
    link.goAwayReceived = true;
    const timeLeftMs = parseDurationMs(timeLeft);
    // The margin, or half the time left when that is shorter: the new connection must be up before the server's close.
    const leaveInMs =
      timeLeftMs === undefined
        ? 0
        : Math.round(Math.max(0, timeLeftMs - Math.min(this.#policy.goAwayMarginMs, timeLeftMs / 2)));
    this.#options.on.event({ kind: "go_away", timeLeftMs, leaveInMs });
    this.#leaveTimer = setTimeout(() => this.#leave(link), leaveInMs);
    this.#leaveIfCalm();
  }

  /** After a goAway: leave now if no call is open and everything sent is covered by the newest handle. */
  #leaveIfCalm(): void {
    const link = this.#link;
    if (link === undefined || !link.goAwayReceived) return;
    if (this.#options.busy() || this.#outbox.length > 0) return;
    this.#leave(link);
  }

  #leave(link: LiveLink): void {
    if (link !== this.#link || this.#closed) return;
    link.close();
    this.#lost(link, { cause: "go_away", detail: "left after the server's goAway", code: undefined, transient: true });
  }

  #onEnd(link: LiveLink, end: LinkEnd): void {
    if (link !== this.#link || this.#closed) return;
    this.#lost(link, end);
  }

  #lost(link: LiveLink, end: LinkEnd | { cause: "go_away"; detail: string; code: undefined; transient: true }): void {
    const since = this.#now();
    this.#link = undefined;
    this.#sentAt = undefined;
    clearTimeout(this.#leaveTimer);
    const cause: LinkLossCause = link.goAwayReceived ? "go_away" : end.cause;
    this.#flaps = link.messages === 0 ? this.#flaps + 1 : 0;
    // A resumed connection the server ends before saying anything, with a code that is not a transient one, is its refusal of the handle.
    if (
      link.offeredHandle !== undefined &&
      link.offeredHandle === this.#handle &&
      link.messages === 0 &&
      !end.transient
    ) {
      this.#options.on.event({ kind: "resume_refused", handle: link.offeredHandle, detail: end.detail });
      this.#forgetHandle();
    }
    const unconfirmed =
      this.#handle === undefined ? [] : this.#outbox.splice(0).map((e) => ({ record: e.record, answered: e.answered }));
    this.#options.on.lost({ cause, detail: end.detail, unconfirmed, handle: this.#handle });
    this.#track(this.#connect({ cause, since, first: false }));
  }

  #forgetHandle(): void {
    this.#handle = undefined;
    this.#outbox = [];
  }

  #track(p: Promise<void>): void {
    const tracked = p.catch((error: unknown) =>
      this.#options.on.failed(
        error instanceof ArmbridgeError
          ? error
          : new ArmbridgeError("ARMB_ERR_GEMINI_API", { reason: String(error) }, { cause: error }),
      ),
    );
    this.#reconnecting = tracked;
  }

  /** Connects until a connection is up, the run ends, or `policy.attempts` attempts in a row failed. */
  async #connect(why: { cause: LinkLossCause; since: number; first: boolean }): Promise<void> {
    // A server that accepts each connection and drops it at once must not be hammered: those count as failures too.
    let failures = why.first ? 0 : this.#flaps;
    let last: SetupFailure = { refused: false, detail: "connections ended before the server said anything" };
    if (failures >= this.#policy.attempts) throw gaveUpError(failures, this.#now() - why.since, last);
    let delayMs = failures > 0 ? backoffDelayMs(failures, this.#policy.backoff, this.#options.random) : 0;
    while (!this.#signal.aborted) {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.#signal }).catch(() => undefined);
      if (this.#signal.aborted) return;
      const handle = this.#handle;
      const link = new LiveLink(handle, { message: (l, m) => this.#onMessage(l, m), end: (l, e) => this.#onEnd(l, e) });
      const failure = await link.open({
        ai: this.#options.ai,
        model: this.#options.model,
        config: this.#options.config(handle),
        setupTimeoutMs: this.#policy.setupTimeoutMs,
        signal: this.#signal,
      });
      if (this.#signal.aborted) {
        link.close();
        return;
      }
      if (failure === undefined) {
        this.#link = link;
        const start = why.first ? "first" : handle === undefined ? "fresh" : "resumed";
        if (start !== "first")
          this.#options.on.event({
            kind: "reconnected",
            mode: start,
            cause: why.cause,
            durationMs: this.#now() - why.since,
            attempts: failures + 1,
            handle,
          });
        // Messages that came with setupComplete first (a handle, or a resumed model already calling): what we send next comes after them.
        link.activate();
        this.#options.on.opened(start);
        // Closed while the conversation was being told about it (or before setupComplete's flush ended): handle as a loss.
        if (link.ended && link === this.#link)
          this.#lost(link, { cause: "closed", code: undefined, detail: "closed right after setup", transient: true });
        return;
      }
      last = failure;
      if (failure.refused && handle !== undefined) {
        this.#options.on.event({ kind: "resume_refused", handle, detail: failure.detail });
        this.#forgetHandle();
        delayMs = 0;
        continue;
      }
      if (failure.refused) throw refusedError(failure);
      failures++;
      if (failures >= this.#policy.attempts) throw gaveUpError(failures, this.#now() - why.since, last);
      delayMs = backoffDelayMs(failures, this.#policy.backoff, this.#options.random);
      this.#options.on.event({
        kind: "reconnect_failed",
        attempt: failures,
        attempts: this.#policy.attempts,
        detail: failure.detail,
        retryInMs: delayMs,
      });
    }
  }
}

function refusedError(failure: SetupFailure): ArmbridgeError {
  return new ArmbridgeError("ARMB_ERR_GEMINI_API", {
    reason: `the Live server refused the session setup (${failure.detail}). What to do: check GEMINI_API_KEY, --model (a Live-capable model this key may use) and --api-version`,
  });
}

function gaveUpError(attempts: number, elapsedMs: number, last: SetupFailure): ArmbridgeError {
  return new ArmbridgeError("ARMB_ERR_GEMINI_API", {
    reason: `no Live connection after ${attempts} attempts over ${(elapsedMs / 1000).toFixed(1)} s (last: ${last.detail}). What to do: check the network, any proxy and --base-url; the motions already under way were not stopped and are in the ledger`,
  });
}
