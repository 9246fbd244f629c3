import { describeError } from "./api.js";
import { ApiError } from "../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { $, setText } from "./dom.js";
import { clientLabel, clockTime } from "./format.js";
import type { ExecutorEventView, PresenceView, StateView } from "./wire.js";

/** Heartbeats this often at most, and at least three times per timeout_ms. */
const MAX_BEAT_MS = 1000;

type Settled = Extract<ExecutorEventView, { type: "settled" }>;

/**
 * Hold-to-run (config operator_presence): while the bridge requires it, this
 * console heartbeats with the name typed in it, says in the sticky header
 * whether an operator is present (and who), and tells why a motion was
 * refused for lack of one. A hidden page does not heartbeat: a console in a
 * background tab is nobody watching the arm. Closing the page ends its
 * presence at once.
 */
export class PresencePanel {
  readonly #api: ArmbridgeClient;
  readonly #operator: () => string;
  readonly #onRequired: () => void;
  /** This page's own id for its life: the bridge counts each open console once. It is this console's key, never shown. */
  readonly #session = randomSession();
  /** The tag the bridge lists this console under (from its heartbeat answer); the id itself is never listed. */
  #tag: string | undefined;
  #view: PresenceView | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #beatError: string | undefined;
  #refusal: string | undefined;

  constructor(api: ArmbridgeClient, operator: () => string, onRequired: () => void) {
    this.#api = api;
    this.#operator = operator;
    this.#onRequired = onRequired;
    $("presence-name").addEventListener("click", () => {
      const input = $("operator") as HTMLInputElement;
      input.scrollIntoView({ block: "center" });
      input.focus();
    });
  }

  /** True once the bridge said it requires presence. */
  get required(): boolean {
    return this.#view?.required === true;
  }

  /** Asks once whether the bridge requires presence; starts heartbeating if it does. */
  async load(): Promise<void> {
    try {
      this.#show(await this.#api.call("presence"));
    } catch (error) {
      // An older bridge has no such route: it has no presence to keep either.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      return;
    }
    if (!this.required || this.#timer !== undefined) return;
    this.#onRequired();
    const every = Math.min(MAX_BEAT_MS, Math.floor((this.#view?.timeout_ms ?? 3000) / 3));
    this.#timer = setInterval(() => void this.beat(), every);
    document.addEventListener("visibilitychange", () => void this.beat());
    // keepalive: the request outlives the page that sends it.
    window.addEventListener(
      "pagehide",
      () =>
        void this.#api
          .call("presenceBeat", { body: { session: this.#session, leaving: true } }, { keepalive: true })
          .catch(() => undefined),
    );
    await this.beat();
  }

  /** One heartbeat now (the name typed changed, the page became visible). */
  async beat(): Promise<void> {
    if (!this.required) return;
    if (document.visibilityState !== "visible") return this.#render();
    const operator = this.#operator();
    try {
      const view = await this.#api.call("presenceBeat", {
        body: { session: this.#session, ...(operator ? { operator } : {}) },
      });
      this.#tag = view.yours ?? this.#tag;
      this.#show(view);
      this.#beatError = undefined;
    } catch (error) {
      this.#beatError = describeError(error);
    }
    this.#render();
  }

  /** Presence as the state stream says it stands. */
  update(s: StateView): void {
    if (s.presence) this.#show(s.presence);
  }

  /** A call refused for lack of presence: said here, in words, with what is missing. */
  onSettled(e: Settled): void {
    if (e.result.status !== "blocked" || e.result.error_code !== "ARMB_ERR_OPERATOR_ABSENT") return;
    // The bar above says what is missing; this line says which call paid for it.
    this.#refusal = `${clockTime(Date.now())}: ${e.tool} (call ${e.callId}) from ${clientLabel(e.client)} was REFUSED for want of an operator; nothing was sent.`;
    this.#render();
  }

  #show(view: PresenceView): void {
    this.#view = view;
    // Presence is back: the old refusal is history (the History panel keeps it).
    if (view.operator !== null) this.#refusal = undefined;
    this.#render();
  }

  #render(): void {
    const bar = $("presence");
    const v = this.#view;
    bar.hidden = v?.required !== true;
    if (!v?.required) return;
    const mine = v.consoles.find((c) => c.session === this.#tag);
    const hidden = document.visibilityState !== "visible";
    const present = v.operator !== null;
    let text: string;
    if (hidden) text = "HOLD-TO-RUN: this page is hidden, so it does not count as an operator at the arm.";
    else if (this.#beatError)
      text = `HOLD-TO-RUN: this console cannot reach the bridge (${this.#beatError}); it does not count as present.`;
    else if (present)
      text = `HOLD-TO-RUN: ${v.operator} is present${mine?.operator === v.operator ? " (this console)" : ""}. Motions are admitted while a named operator's console stays open; if it goes quiet for ${v.timeout_ms} ms mid-motion, the arm is halted.`;
    else
      text = `HOLD-TO-RUN: NO OPERATOR PRESENT. Motions are refused: ${v.missing ?? "no operator"}.${this.#operator() ? "" : " Type your name to be the operator at the arm."}`;
    bar.className = `presence ${present && !hidden && !this.#beatError ? "ok" : "bad"}`;
    bar.dataset.operator = v.operator ?? "";
    setText($("presence-text"), text);
    ($("presence-name") as HTMLButtonElement).hidden = present || this.#operator() !== "";
    const refusal = $("presence-refusal");
    refusal.hidden = this.#refusal === undefined;
    if (this.#refusal) setText(refusal, this.#refusal);
  }
}

function randomSession(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `c-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
