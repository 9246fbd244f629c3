import { describeError } from "./api.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { $, setText } from "./dom.js";
import { clockTime } from "./format.js";
import type { HaltView, StateView } from "./wire.js";

/** A receipt (a release, a press that never reached the bridge) stays this long, then fades away. */
const RECEIPT_MS = 8000;
const NOT_REACHED_MS = 30_000;

/**
 * HALT and its latch, in the sticky header so both stay on screen at any
 * scroll position. HALT is one tap, never waits for a name. While the bridge
 * is latched one red bar says so — who halted, when, whether the arm
 * confirmed it — and releases it by a name typed for this release: the
 * console never fills it in, so a release names whoever pressed it. A
 * release, by this console or another, is a short receipt that fades.
 */
export class HaltBar {
  readonly #api: ArmbridgeClient;
  readonly #operator: () => string;
  readonly #changed: () => void;
  readonly #releaseName = $("release-name") as HTMLInputElement;
  readonly #releaseError = $("release-error");
  #sent = 0;
  /** The halt the latch shows; a new one starts with an empty name field. */
  #shownHalt: string | undefined;
  /** When a HALT press did not reach the bridge: told until the bridge is heard from again. */
  #unsentAt: number | undefined;
  #fade: ReturnType<typeof setTimeout> | undefined;

  constructor(api: ArmbridgeClient, operator: () => string, changed: () => void) {
    this.#api = api;
    this.#operator = operator;
    this.#changed = changed;
    $("halt").addEventListener("click", () => void this.halt());
    $("release").addEventListener("click", () => void this.#release());
    // The field and its error agree: typing a name lifts the error at once.
    this.#releaseName.addEventListener("input", () => {
      if (this.#releaseName.value.trim() !== "") this.#setReleaseError(undefined);
    });
  }

  async halt(): Promise<void> {
    const n = ++this.#sent;
    this.#unsentAt = undefined;
    this.#outcome("sent", "HALT SENT: waiting for the arm to confirm…");
    const operator = this.#operator();
    try {
      const a = await this.#api.call("halt", { body: { source: "console", ...(operator ? { operator } : {}) } });
      if (n !== this.#sent) return;
      // The latch tells it, once, as the arm answered: no second banner.
      this.#hideOutcome();
      this.#showLatch(a.halt);
    } catch (error) {
      if (n !== this.#sent) return;
      this.#unsentAt = Date.now();
      this.#outcome(
        "bad",
        `HALT NOT SENT: the bridge did not take it (${describeError(error)}). The arm may still be moving: use the emergency stop if it moves.`,
      );
    }
    this.#changed();
  }

  /** The latch as /v1/state says it is; any state at all means the bridge is heard from. */
  update(s: StateView | undefined): void {
    if (s && this.#unsentAt !== undefined && !s.halted) {
      const at = this.#unsentAt;
      this.#unsentAt = undefined;
      this.#receipt(
        "warn",
        `The bridge answers again (${clockTime(Date.now())}), and your HALT at ${clockTime(at)} never reached it: nothing is halted. Press HALT again if the arm must stop.`,
        NOT_REACHED_MS,
      );
    }
    if (s?.halted && s.halt) this.#showLatch(s.halt);
    else this.#hideLatch();
  }

  /** A halt_released event: whoever released it, from whichever console, the newest release is the receipt. */
  released(halts: readonly HaltView[]): void {
    const newest = [...halts].sort((a, b) => (b.released_at ?? 0) - (a.released_at ?? 0))[0];
    if (newest?.released_by)
      this.#receipt(
        "ok",
        `Released by ${newest.released_by} at ${clockTime(newest.released_at ?? Date.now())}: motions are accepted again.`,
        RECEIPT_MS,
      );
  }

  #showLatch(h: HaltView): void {
    const bar = $("latch");
    if (this.#shownHalt !== h.halt_id) {
      // A new latch asks for a name afresh: whoever releases it types their own.
      this.#shownHalt = h.halt_id;
      this.#releaseName.value = "";
      this.#setReleaseError(undefined);
    }
    bar.hidden = false;
    this.#unsentAt = undefined;
    this.#hideOutcome();
    const answer =
      h.confirmed === null
        ? "waiting for the arm's answer"
        : h.confirmed
          ? "the arm confirmed it"
          : "the arm did NOT confirm it: it may still be moving \u2014 use the emergency stop if it moves";
    const cls = `latch halted${h.confirmed === false ? " unconfirmed" : ""}`;
    if (bar.className !== cls) bar.className = cls;
    setText($("latch-text"), `HALTED at ${clockTime(h.halted_at)} by ${h.who}; ${answer}.`);
    // Why the arm did not confirm: where there is room (a phone keeps the header to its facts).
    setText($("latch-detail"), h.confirmed === false && h.detail ? `(${h.detail})` : "");
  }

  #hideLatch(): void {
    $("latch").hidden = true;
    this.#shownHalt = undefined;
  }

  async #release(): Promise<void> {
    const name = this.#releaseName.value.trim();
    if (!name) {
      this.#setReleaseError("Type your name to release the halt.");
      this.#releaseName.focus();
      return;
    }
    this.#setReleaseError(undefined);
    try {
      const a = await this.#api.call("releaseHalt", { body: { operator: name } });
      this.released(a.released);
      this.#hideLatch();
    } catch (error) {
      this.#setReleaseError(`Release failed: ${describeError(error)}`);
    }
    this.#changed();
  }

  #setReleaseError(message: string | undefined): void {
    this.#releaseName.classList.toggle("missing", message !== undefined && this.#releaseName.value.trim() === "");
    this.#releaseError.hidden = message === undefined;
    setText(this.#releaseError, message ?? "");
  }

  #outcome(tone: "sent" | "bad", message: string): void {
    this.#clearFade();
    const box = $("halt-outcome");
    box.className = `halt-outcome ${tone}`;
    box.hidden = false;
    setText(box, message);
  }

  /** A short line that fades by itself; a newer one replaces it. */
  #receipt(tone: "ok" | "warn", message: string, ms: number): void {
    this.#clearFade();
    const box = $("halt-outcome");
    box.className = `halt-outcome receipt ${tone}`;
    box.hidden = false;
    setText(box, message);
    this.#fade = setTimeout(() => {
      this.#fade = undefined;
      box.hidden = true;
    }, ms);
  }

  #hideOutcome(): void {
    this.#clearFade();
    $("halt-outcome").hidden = true;
  }

  #clearFade(): void {
    if (this.#fade !== undefined) clearTimeout(this.#fade);
    this.#fade = undefined;
  }
}
