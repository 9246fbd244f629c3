import type {
  GoogleGenAI,
  LiveConnectConfig,
  LiveSendClientContentParameters,
  LiveSendRealtimeInputParameters,
  LiveSendToolResponseParameters,
  LiveServerMessage,
  Session,
} from "@google/genai";

/** How a connection that had completed its setup ended. */
export interface LinkEnd {
  readonly cause: "closed" | "error";
  readonly code: number | undefined;
  readonly detail: string;
  /** Another connection may well succeed (network trouble, server restart), as opposed to a refusal. */
  readonly transient: boolean;
}

/** Why a connection never completed its setup. `refused`: the server turned the setup down (a bad key, model or handle). */
export interface SetupFailure {
  readonly refused: boolean;
  readonly code?: number | undefined;
  readonly detail: string;
}

export interface LiveLinkHandlers {
  message(link: LiveLink, message: LiveServerMessage): void;
  /** Once, when a connection that completed its setup ends (not after our own close()). */
  end(link: LiveLink, end: LinkEnd): void;
}

export interface OpenLiveLinkOptions {
  readonly ai: Pick<GoogleGenAI, "live">;
  readonly model: string;
  readonly config: LiveConnectConfig;
  readonly setupTimeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * Close codes after which another attempt may succeed (RFC 6455 §7.4.1 and
 * the IANA registry): 1001 going away (the Live server's own close after a
 * goAway), 1005 no status, 1006 abnormal (no close frame: a dropped socket),
 * 1011 internal error, 1012 service restart, 1013 try again later, 1014 bad
 * gateway. Any other code during setup is the server refusing it; Google's
 * Live server closes a refused resumption with 1007 (a report on its
 * developer forum: https://discuss.ai.google.dev/t/gemini-3-8-live-live-sessions-are-closed-at-exactly-58-00-with-1011-deadline-expired-resumption-afterwards-fails-with-1007/186392).
 */
const TRANSIENT_CLOSE_CODES: ReadonlySet<number> = new Set([1001, 1005, 1006, 1011, 1012, 1013, 1014]);

/**
 * One WebSocket connection of a Live session, through the SDK's
 * `ai.live.connect`. The SDK resolves `connect()` only once `setupComplete`
 * arrives and never rejects it when the socket closes first, so `open()`
 * races it against the socket's own close/error, a setup time limit and the
 * run's signal; a connection that completes late is closed at once.
 */
export class LiveLink {
  /** The resumption handle this connection offered in its setup, if any. */
  readonly offeredHandle: string | undefined;
  /** Server messages other than setupComplete received on this connection. */
  messages = 0;
  /** The server announced it will close this connection. */
  goAwayReceived = false;
  readonly #handlers: LiveLinkHandlers;
  #session: Session | undefined;
  #ended = false;
  #closeWhenOpen = false;
  /** Messages that arrive before activate(): the SDK delivers those queued behind setupComplete before connect() even returns. */
  #held: LiveServerMessage[] | undefined = [];

  constructor(offeredHandle: string | undefined, handlers: LiveLinkHandlers) {
    this.offeredHandle = offeredHandle;
    this.#handlers = handlers;
  }

  /** Ended: closed by either side, or never opened. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Resolves undefined once setupComplete has arrived, or with why not. */
  async open(options: OpenLiveLinkOptions): Promise<SetupFailure | undefined> {
    let setupDone = false;
    let failSetup: (f: SetupFailure) => void = () => undefined;
    const setupFailed = new Promise<SetupFailure>((resolve) => (failSetup = resolve));
    const endWith = (end: LinkEnd): void => {
      if (this.#ended) return;
      this.#ended = true;
      if (!setupDone) failSetup({ refused: !end.transient, code: end.code, detail: end.detail });
      else this.#handlers.end(this, end);
    };
    const connecting = options.ai.live.connect({
      model: options.model,
      config: options.config,
      callbacks: {
        onmessage: (message: LiveServerMessage) => {
          if (this.#ended) return;
          if (message.setupComplete) setupDone = true;
          else this.messages++;
          if (this.#held) this.#held.push(message);
          else this.#handlers.message(this, message);
        },
        onerror: (e: unknown) => endWith(errorEnd(e)),
        onclose: (e: unknown) => endWith(closeEnd(e)),
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<SetupFailure>((resolve) => {
      timer = setTimeout(
        () => resolve({ refused: false, detail: `no setupComplete within ${options.setupTimeoutMs} ms` }),
        options.setupTimeoutMs,
      );
    });
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<SetupFailure>((resolve) => {
      onAbort = () => resolve({ refused: false, detail: "the run ended" });
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const first = await Promise.race([
        connecting.then(
          (session) => ({ session }),
          (error: unknown): SetupFailure => ({
            refused: false,
            detail: error instanceof Error ? error.message : String(error),
          }),
        ),
        setupFailed,
        timedOut,
        aborted,
      ]);
      if ("session" in first) {
        this.#session = first.session;
        if (this.#closeWhenOpen) this.close();
        return undefined;
      }
      this.#ended = true;
      // A setup that completes after all is not wanted any more.
      void connecting.then(
        (late) => late.close(),
        () => undefined,
      );
      return first;
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Delivers messages from now on, those held since setupComplete first, in order. */
  activate(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const m of held) if (!this.#ended) this.#handlers.message(this, m);
  }

  sendClientContent(params: LiveSendClientContentParameters): void {
    this.#live().sendClientContent(params);
  }

  sendToolResponse(params: LiveSendToolResponseParameters): void {
    this.#live().sendToolResponse(params);
  }

  sendRealtimeInput(params: LiveSendRealtimeInputParameters): void {
    this.#live().sendRealtimeInput(params);
  }

  /** Closes from our side; no `end` follows. */
  close(): void {
    this.#ended = true;
    if (this.#session === undefined) {
      this.#closeWhenOpen = true;
      return;
    }
    try {
      this.#session.close();
    } catch {
      // already closed by the server
    }
  }

  #live(): Session {
    if (this.#session === undefined || this.#ended) throw new Error("the Live connection is not open");
    return this.#session;
  }
}

/** ws's CloseEvent, without DOM types. */
function closeEnd(e: unknown): LinkEnd {
  const { code, reason } = (e ?? {}) as { code?: unknown; reason?: unknown };
  const c = typeof code === "number" ? code : undefined;
  const detail =
    [c === undefined ? "" : `code ${c}`, typeof reason === "string" ? reason : ""].filter((p) => p !== "").join(", ") ||
    "no detail";
  return {
    cause: "closed",
    code: c,
    detail: `WebSocket closed (${detail})`,
    transient: c === undefined || TRANSIENT_CLOSE_CODES.has(c),
  };
}

/**
 * ws's ErrorEvent. A failed upgrade reads "Unexpected server response: 403":
 * a 4xx other than 408 and 429 is a refusal (a bad key or model), anything
 * else (refused or reset connections, 5xx) may pass.
 */
function errorEnd(e: unknown): LinkEnd {
  const message = (e as { message?: unknown } | undefined)?.message;
  const text = typeof message === "string" && message !== "" ? message : "no detail";
  const status = /Unexpected server response: (\d{3})/.exec(text)?.[1];
  const refused = status !== undefined && status.startsWith("4") && status !== "408" && status !== "429";
  return { cause: "error", code: undefined, detail: `WebSocket error: ${text}`, transient: !refused };
}
