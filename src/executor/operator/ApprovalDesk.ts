import { randomBytes } from "node:crypto";
import { ArmbridgeError } from "../../errors.js";
import type { CallClient } from "../../ledger/CallClient.js";
import { normaliseOperatorName } from "../../ledger/operatorName.js";
import { reasonOf } from "../calls/reasonOf.js";

/** How a request ended. `withdrawn`: the bridge shut down or the caller went away before anyone decided. */
export type ApprovalDecision = "approved" | "declined" | "expired" | "withdrawn";

/** A pending request as the API, the console and the CLI show it (snake_case, like results). */
export interface ApprovalView {
  readonly id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly resources: readonly string[];
  /** The motion's planned absolute targets (IK-derived joints for Cartesian tools): what the gauges draw. */
  readonly targets: Readonly<Record<string, number>>;
  /** Which rule asked for approval, in words. */
  readonly why: string;
  readonly requested_at: number;
  readonly expires_at: number;
  /** Who sent the call; null when the caller said nothing. */
  readonly client: CallClient | null;
}

/** A request once it ended. */
export interface DecidedApprovalView extends ApprovalView {
  readonly decision: ApprovalDecision;
  readonly operator: string | null;
  readonly note: string | null;
  readonly decided_at: number;
  /** Set when a HALT declined the request: the halt that did (a motion asked before a halt is never run after it). */
  readonly halt_id?: string | undefined;
}

export interface ApprovalRequest {
  readonly callId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly resources: readonly string[];
  readonly targets: Readonly<Record<string, number>>;
  readonly why: string;
  readonly client?: CallClient | undefined;
}

export interface ApprovalDeskOptions {
  readonly timeoutMs: number;
  readonly now?: () => number;
  readonly newId?: () => string;
  /** Told when a request appears and when it ends (the executor turns these into events). */
  readonly onRequested?: (view: ApprovalView) => void;
  readonly onResolved?: (view: DecidedApprovalView) => void;
}

/** Decided requests kept for answering a late approve/decline with 409 rather than 404. */
const DECIDED_KEPT = 256;

interface Pending {
  readonly view: ApprovalView;
  readonly settle: (decided: DecidedApprovalView) => void;
}

/**
 * Calls waiting for an operator's approve / decline. Holds no locks and
 * sends nothing itself: the executor waits on `request` while it holds the
 * call's locks, and nothing is recorded in the ledger until the request is
 * approved — so a bridge that dies while a request waits leaves nothing to
 * reconcile. Each request ends exactly once: approved, declined, expired
 * (its own timer, `approval_timeout_s`), or withdrawn (`signal`).
 */
export class ApprovalDesk {
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #options: ApprovalDeskOptions;
  readonly #pending = new Map<string, Pending>();
  readonly #decided = new Map<string, DecidedApprovalView>();

  constructor(options: ApprovalDeskOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? (() => `apr_${randomBytes(8).toString("hex")}`);
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Pending requests, oldest first. */
  pending(): ApprovalView[] {
    return [...this.#pending.values()].map((p) => p.view);
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** A pending request's view, or a decided one's final view. */
  get(id: string): ApprovalView | DecidedApprovalView | undefined {
    return this.#pending.get(id)?.view ?? this.#decided.get(id);
  }

  /** Waits for a decision; never rejects. `signal` withdraws the request (shutdown, caller gone). */
  request(r: ApprovalRequest, signal: AbortSignal): Promise<DecidedApprovalView> {
    const requestedAt = this.#now();
    const view: ApprovalView = {
      id: this.#newId(),
      call_id: r.callId,
      tool: r.tool,
      args: r.args,
      resources: r.resources,
      targets: r.targets,
      why: r.why,
      requested_at: requestedAt,
      expires_at: requestedAt + this.#timeoutMs,
      client: r.client ?? null,
    };
    return new Promise<DecidedApprovalView>((resolve) => {
      const onAbort = (): void => end({ decision: "withdrawn", operator: null, note: reasonOf(signal) });
      const timer = setTimeout(() => end({ decision: "expired", operator: null, note: null }), this.#timeoutMs);
      const end = (d: Pick<DecidedApprovalView, "decision" | "operator" | "note" | "halt_id">): void => {
        if (!this.#pending.has(view.id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(view.id);
        const decided: DecidedApprovalView = {
          ...view,
          decision: d.decision,
          operator: d.operator,
          note: d.note,
          decided_at: this.#now(),
          ...(d.halt_id === undefined ? {} : { halt_id: d.halt_id }),
        };
        this.#remember(decided);
        this.#options.onResolved?.(decided);
        resolve(decided);
      };
      this.#pending.set(view.id, { view, settle: (decided) => end(decided) });
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.#options.onRequested?.(view);
    });
  }

  approve(id: string, by: { readonly operator: string; readonly note?: string | undefined }): DecidedApprovalView {
    return this.#decide(id, "approved", by);
  }

  decline(id: string, by: { readonly operator: string; readonly note?: string | undefined }): DecidedApprovalView {
    return this.#decide(id, "declined", by);
  }

  /**
   * Declines every pending request at once: a HALT does, so that nothing
   * asked before it can be approved into a motion after its release. Each
   * request says why (`note`) and which halt (`halt_id`); the calls waiting
   * on them are answered at once. Returns the requests it declined.
   */
  declineAll(by: {
    readonly operator: string | null;
    readonly note: string;
    readonly haltId: string;
  }): DecidedApprovalView[] {
    const declined: DecidedApprovalView[] = [];
    for (const [id, pending] of [...this.#pending]) {
      pending.settle({
        ...pending.view,
        decision: "declined",
        operator: by.operator,
        note: by.note,
        decided_at: this.#now(),
        halt_id: by.haltId,
      });
      const decided = this.#decided.get(id);
      if (decided) declined.push(decided);
    }
    return declined;
  }

  #decide(
    id: string,
    decision: "approved" | "declined",
    by: { readonly operator: string; readonly note?: string | undefined },
  ): DecidedApprovalView {
    const pending = this.#pending.get(id);
    if (!pending) {
      const done = this.#decided.get(id);
      if (done)
        throw new ArmbridgeError("ARMB_ERR_APPROVAL_DECIDED", {
          id,
          decision: done.decision,
          by: done.operator ? ` by ${done.operator}` : "",
        });
      throw new ArmbridgeError("ARMB_ERR_APPROVAL_NOT_FOUND", { id });
    }
    const operator = normaliseOperatorName(by.operator);
    if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_APPROVAL_OPERATOR_REQUIRED", { id });
    const note = by.note?.trim() ? by.note.trim() : null;
    pending.settle({ ...pending.view, decision, operator, note, decided_at: this.#now() });
    const decided = this.#decided.get(id);
    if (!decided) throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: `approval ${id} did not settle` });
    return decided;
  }

  #remember(decided: DecidedApprovalView): void {
    this.#decided.set(decided.id, decided);
    // Maps keep insertion order: the first key is the oldest.
    while (this.#decided.size > DECIDED_KEPT) {
      const oldest = this.#decided.keys().next().value;
      if (oldest === undefined) break;
      this.#decided.delete(oldest);
    }
  }
}
