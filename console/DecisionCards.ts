import { ApiError } from "../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { ApprovalCard } from "./ApprovalCard.js";
import { $ } from "./dom.js";
import { OutcomeCard, type CardContext, type LiveView } from "./OutcomeCard.js";
import type { ActionView, ApprovalView } from "./wire.js";

/**
 * What waits for the operator: a card per unknown outcome (#cards) and per
 * approval request (#approvals). Cards are kept, not rebuilt, so a note being
 * typed survives the next update; none is made before the arm's description
 * is known (`context` answers undefined), since a card's gauges need its limits.
 */
export class DecisionCards {
  readonly #api: ArmbridgeClient;
  readonly #context: () => CardContext | undefined;
  readonly #changed: () => void;
  readonly #cards = new Map<string, OutcomeCard>();
  readonly #approvalCards = new Map<string, ApprovalCard>();
  #approvals: readonly ApprovalView[] = [];
  #approvalsTimer: ReturnType<typeof setTimeout> | undefined;
  /** A bridge without the approval gate answers 404: then the console stops asking. */
  #approvalsAbsent = false;

  /** `changed` runs whenever the approval cards were brought up to date (the page redraws its counts). */
  constructor(api: ArmbridgeClient, context: () => CardContext | undefined, changed: () => void) {
    this.#api = api;
    this.#context = context;
    this.#changed = changed;
  }

  /** The approval requests as last read (GET /v1/approvals). */
  get approvals(): readonly ApprovalView[] {
    return this.#approvals;
  }

  get unknownCount(): number {
    return this.#cards.size;
  }

  get approvalCount(): number {
    return this.#approvalCards.size;
  }

  /** Drops every card: those made before the arm's limits were known are made again. */
  clear(): void {
    for (const c of this.#cards.values()) c.root.remove();
    this.#cards.clear();
    for (const c of this.#approvalCards.values()) c.root.remove();
    this.#approvalCards.clear();
  }

  /** One card per unknown action of the newest state; a card whose action was confirmed leaves. */
  showUnknowns(pending: readonly ActionView[]): void {
    const ctx = this.#context();
    if (!ctx) return;
    const ids = new Set<string>();
    for (const a of pending) {
      ids.add(a.action_id);
      const card = this.#cards.get(a.action_id);
      if (card) card.setOptions(a.confirm_options);
      else {
        const made = new OutcomeCard(a, ctx);
        this.#cards.set(a.action_id, made);
        $("cards").appendChild(made.root);
      }
    }
    for (const [id, c] of this.#cards) {
      if (!ids.has(id)) {
        c.root.remove();
        this.#cards.delete(id);
      }
    }
  }

  /** Reads the approval requests again after `delayMs` (one read at a time; none on a bridge without the gate). */
  refreshApprovals(delayMs = 100): void {
    if (this.#approvalsTimer !== undefined || this.#approvalsAbsent) return;
    this.#approvalsTimer = setTimeout(() => {
      this.#approvalsTimer = undefined;
      this.#api
        .call("approvals")
        .then((r) => {
          this.#approvals = r.approvals;
          this.renderApprovals();
        })
        .catch((error: unknown) => {
          // A dropped request: the next event retries.
          if (error instanceof ApiError && error.status === 404) this.#approvalsAbsent = true;
        });
    }, delayMs);
  }

  /** One card per approval request as last read. */
  renderApprovals(): void {
    const ctx = this.#context();
    if (!ctx) return;
    const ids = new Set<string>();
    for (const a of this.#approvals) {
      ids.add(a.id);
      if (!this.#approvalCards.has(a.id)) {
        const card = new ApprovalCard(a, ctx);
        this.#approvalCards.set(a.id, card);
        $("approvals").appendChild(card.root);
      }
    }
    for (const [id, c] of this.#approvalCards) {
      if (!ids.has(id)) {
        c.root.remove();
        this.#approvalCards.delete(id);
      }
    }
    this.#changed();
  }

  /** Each card's buttons follow the operator's name being there or not. */
  sync(): void {
    for (const c of this.#cards.values()) c.sync();
    for (const c of this.#approvalCards.values()) c.sync();
  }

  update(view: LiveView, now: number): void {
    for (const c of this.#cards.values()) c.update(view, now);
    for (const c of this.#approvalCards.values()) c.update(view, now);
  }
}
