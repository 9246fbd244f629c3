import type { HaltSource } from "../../wire/vocabulary.js";
import { randomBytes } from "node:crypto";
import { asArmbridgeError } from "../../errors.js";
import { poseOf } from "../../transport/poseOf.js";
import { normalizeClient, type CallClient } from "../../ledger/CallClient.js";
import type { HaltRow } from "../../ledger/HaltRow.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { HaltResult, Transport } from "../../transport/Transport.js";

/** What asking for a halt says: who, which axes (all when omitted), why. */
export interface HaltRequest {
  readonly source: HaltSource;
  readonly operator?: string | undefined;
  readonly callId?: string | undefined;
  readonly axes?: readonly string[] | undefined;
  readonly note?: string | undefined;
  /** The client that asked, when it said (a `stop` call's); a person's HALT is named from `source` and `operator` (clientOfHalt). */
  readonly client?: CallClient | undefined;
}

/**
 * Who asked for a halt, as a client: what a motion it cut short names to its
 * model. The console's HALT is the console client under the operator's name,
 * `armbridge halt` the CLI, POST /v1/halt an HTTP caller; a `stop` call says
 * its own client, and the bridge's own halt (operator presence) has none.
 */
export function clientOfHalt(request: HaltRequest): CallClient | undefined {
  if (request.client) return request.client;
  switch (request.source) {
    case "console":
    case "cli":
    case "http":
      return normalizeClient({ kind: request.source, name: request.operator });
    case "tool":
    case "presence":
    case "arm":
      return undefined;
  }
}

/** A halt once the arm answered it (or our wait for the answer ended). */
export interface HaltOutcome {
  readonly halt: HaltRow;
  readonly result: HaltResult;
}

export interface HaltLatchDeps {
  readonly ledger: IntentLedger;
  readonly transport: Transport;
  readonly log: Logger;
  readonly now: () => number;
  /** Told whenever the latch changes: a halt recorded or answered, halts released. */
  readonly onChange: (
    change:
      | { readonly kind: "halted"; readonly halt: HaltRow }
      | { readonly kind: "released"; readonly halts: readonly HaltRow[] },
  ) => void;
}

/**
 * The halt latch. A halt — from the console, a model's `stop`, `armbridge
 * halt` or HTTP — is sent to the arm at once and latches the bridge: from
 * that instant every motion is refused (`blocked`, ARMB_ERR_HALTED) until an
 * operator releases it by name. The latch is held in memory before the halt
 * leaves (nothing can slip in between) and recorded in the ledger, so a
 * restart keeps it.
 *
 * Motions in flight when a halt was sent ask `answerSince` for it: a halt the
 * arm confirmed explains a motion that ended part-way (it settles `halted`,
 * at the pose the arm reports); one it did not confirm explains nothing, and
 * the motion is judged as before (`unknown`, its joints quarantined).
 */
export class HaltLatch {
  readonly #deps: HaltLatchDeps;
  /** Open halts, oldest first: the latch is on while there is one. */
  #open: HaltRow[];
  /** Each open halt's answer from the arm, while it is awaited or kept for motions that ask. */
  readonly #answers = new Map<string, Promise<HaltRow>>();

  constructor(deps: HaltLatchDeps) {
    this.#deps = deps;
    this.#open = deps.ledger.openHalts();
  }

  /** The newest open halt, or undefined when motion is accepted. */
  get engaged(): HaltRow | undefined {
    return this.#open.at(-1);
  }

  /** Every open halt, oldest first. */
  get open(): readonly HaltRow[] {
    return this.#open;
  }

  /**
   * Latches, sends the halt, records it, and resolves once the arm answered
   * (or `signal` ended the wait: then the halt counts as not confirmed).
   * Never rejects.
   */
  async halt(request: HaltRequest, signal: AbortSignal): Promise<HaltOutcome> {
    const d = this.#deps;
    const haltId = `halt_${d.now().toString(36)}${randomBytes(4).toString("hex")}`;
    const provisional: HaltRow = {
      haltId,
      haltedAt: d.now(),
      source: request.source,
      operator: request.operator,
      callId: request.callId,
      client: clientOfHalt(request),
      axes: request.axes,
      note: request.note,
      confirmed: undefined,
      detail: undefined,
      pose: undefined,
      answeredAt: undefined,
      releasedAt: undefined,
      releasedBy: undefined,
      releaseNote: undefined,
    };
    // Latched before the halt leaves: a motion admitted from now on is refused.
    this.#open.push(provisional);
    const sending = d.transport.halt({ ...(request.axes ? { axes: request.axes } : {}), signal });
    let row = provisional;
    try {
      row = d.ledger.recordHalt(provisional);
    } catch (error) {
      // The latch holds in this process all the same; only its survival of a restart is lost.
      d.log.error(
        { halt_id: haltId, err: asArmbridgeError(error).toJSON() },
        "the halt could not be recorded in the ledger; it is latched in this process only",
      );
    }
    this.#replace(row);
    d.onChange({ kind: "halted", halt: row });
    const answer = sending.then((result) => this.#record(row, result));
    this.#answers.set(haltId, answer);
    const result = await sending;
    return { halt: await answer, result };
  }

  /** Releases every open halt (an operator's word, by name); throws ARMB_ERR_NOT_HALTED when none is open. */
  release(operator: string, note: string | undefined): HaltRow[] {
    const released = this.#deps.ledger.releaseHalts({ operator, note }, this.#deps.now());
    this.#open = [];
    this.#answers.clear();
    this.#deps.onChange({ kind: "released", halts: released });
    return released;
  }

  /**
   * The arm's answer to the newest open halt sent at or after `since`: what a
   * motion that started at `since` and ended part-way waits for before it is
   * judged. Undefined when no halt was sent while it ran.
   */
  answerSince(since: number): Promise<HaltRow> | undefined {
    const h = this.#open.at(-1);
    if (!h || h.haltedAt < since) return undefined;
    return this.#answers.get(h.haltId) ?? Promise.resolve(h);
  }

  #record(row: HaltRow, result: HaltResult): HaltRow {
    const d = this.#deps;
    const pose = poseOf(result.status);
    const answer = { confirmed: result.halted, detail: result.error?.message, pose };
    let answered: HaltRow = { ...row, ...answer, answeredAt: d.now() };
    try {
      answered = d.ledger.answerHalt(row.haltId, answer, d.now());
    } catch (error) {
      d.log.error(
        { halt_id: row.haltId, err: asArmbridgeError(error).toJSON() },
        "the arm's answer to a halt could not be recorded in the ledger",
      );
    }
    if (result.halted) d.log.warn({ halt_id: row.haltId, pose }, "halt confirmed by the arm");
    else
      d.log.error(
        { halt_id: row.haltId, err: result.error?.toJSON() },
        "halt NOT confirmed by the arm: it may still be moving",
      );
    // Released meanwhile: the answer is kept in the ledger, the latch stays off.
    if (this.#open.some((h) => h.haltId === row.haltId)) {
      this.#replace(answered);
      d.onChange({ kind: "halted", halt: answered });
    }
    return answered;
  }

  #replace(row: HaltRow): void {
    this.#open = this.#open.map((h) => (h.haltId === row.haltId ? row : h));
  }
}
