import { describeError, type ApiClient } from "./api.js";
import { $, setText } from "./dom.js";
import { clockTime } from "./format.js";
import type { HaltAnswer, HaltReleaseAnswer, StateView } from "./wire.js";

/**
 * HALT and its latch, in the sticky header so both stay on screen at any
 * scroll position. HALT is one tap, never waits for a name, and its outcome
 * is told as the arm answered it: confirmed, or not (red, why, what to do).
 * While the bridge is latched the bar says who halted and when, and an
 * operator releases it by name.
 */
export class HaltBar {
  readonly #api: ApiClient;
  readonly #operator: () => string;
  readonly #changed: () => void;
  readonly #releaseName = $("release-name") as HTMLInputElement;
  #sent = 0;

  constructor(api: ApiClient, operator: () => string, changed: () => void) {
    this.#api = api;
    this.#operator = operator;
    this.#changed = changed;
    $("halt").addEventListener("click", () => void this.halt());
    $("release").addEventListener("click", () => void this.#release());
  }

  async halt(): Promise<void> {
    const n = ++this.#sent;
    this.#outcome("sent", "HALT SENT: waiting for the arm to confirm…");
    const operator = this.#operator();
    try {
      const a = await this.#api.post<HaltAnswer>("/v1/halt", { source: "console", ...(operator ? { operator } : {}) });
      if (n !== this.#sent) return;
      this.#outcome(a.halted ? "ok" : "bad", a.halted ? `HALTED: ${a.message}` : `HALT NOT CONFIRMED: ${a.message}`);
    } catch (error) {
      if (n !== this.#sent) return;
      this.#outcome("bad", `HALT NOT SENT: the bridge did not take it (${describeError(error)}). The arm may still be moving: use the emergency stop if it moves.`);
    }
    this.#changed();
  }

  /** The latch as /v1/state says it is. */
  update(s: StateView | undefined): void {
    const bar = $("latch");
    const h = s?.halt;
    bar.hidden = !s?.halted || !h;
    if (!h) return;
    const answer = h.confirmed === null ? "waiting for the arm's answer" : h.confirmed ? "the arm confirmed it" : `the arm did NOT confirm it${h.detail ? ` (${h.detail})` : ""}: it may still be moving`;
    bar.className = `latch ${h.confirmed === false ? "bad" : "held"}`;
    setText($("latch-text"), `HALTED by ${h.who} at ${clockTime(h.halted_at)}; ${answer}. Every motion is refused until an operator releases it.`);
    if (!this.#releaseName.value) this.#releaseName.value = this.#operator();
  }

  async #release(): Promise<void> {
    const name = this.#releaseName.value.trim();
    if (!name) {
      this.#releaseName.classList.add("missing");
      this.#outcome("bad", "Type your name to release the halt: the person at the arm says it is safe to move again.");
      return;
    }
    this.#releaseName.classList.remove("missing");
    try {
      const a = await this.#api.post<HaltReleaseAnswer>("/v1/halt/release", { operator: name });
      this.#outcome("ok", a.message);
    } catch (error) {
      this.#outcome("bad", `Release failed: ${describeError(error)}`);
    }
    this.#changed();
  }

  #outcome(tone: "sent" | "ok" | "bad", message: string): void {
    const box = $("halt-outcome");
    box.className = `halt-outcome ${tone}`;
    box.hidden = false;
    setText(box, message);
  }
}
