import type { CallResult, ToolCatalogue } from "../../bridge/BridgePort.js";
import { CALL_STATUSES, hashArgs } from "../../bridge/portVocabulary.js";
import { resultOf, type FunctionResponse } from "../toFunctionResponse.js";
import type { IdentifiedCall } from "./GeminiToolAdapter.js";

/**
 * Why a call's result never reached the model: the server cancelled it, a
 * turn interrupted it, or the connection carrying the session was lost
 * before the result was delivered (or before a resumable handle covered it).
 */
export type MissCause = "cancelled" | "interrupted" | "connection_lost";

const CAUSE_WORDS: Readonly<Record<MissCause, string>> = {
  cancelled: "the server cancelled it (toolCallCancellation)",
  interrupted: "a new turn interrupted the session while it ran",
  connection_lost: "the connection to the model was lost and the session resumed from a point before this call",
};

/**
 * How long after a missed motion settles a repeat of it still joins it, if
 * the model has not been told its outcome and has asked for nothing new by
 * then. Past it the motion is still told in a note, but an identical call
 * is a new motion: by then it is as likely a deliberate new request as a
 * blind repeat. See docs/reliability.md.
 */
export const DEFAULT_JOIN_WINDOW_MS = 600_000;

/** A motion whose result the session never delivered, until the model is told. */
export interface UndeliveredMotion {
  /** The first call of this motion; later repeats join it. */
  readonly call: IdentifiedCall;
  readonly cause: MissCause;
  /** Settles when the executor settles the action (it always does). */
  readonly response: Promise<FunctionResponse>;
  /** Set once `response` has settled. */
  readonly settled: FunctionResponse | undefined;
}

interface Entry {
  readonly key: string;
  readonly call: IdentifiedCall;
  readonly cause: MissCause;
  readonly response: Promise<FunctionResponse>;
  settled: FunctionResponse | undefined;
  settledAt: number | undefined;
  /** A repeat may still join it: no newer motion request has come since its result was lost. */
  joinable: boolean;
}

export interface UndeliveredMotionsOptions {
  /** Default DEFAULT_JOIN_WINDOW_MS. */
  readonly joinWindowMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * The motions a Live run started whose results the model never got, each
 * under its first call's id. Two calls are the same motion when the tool
 * and its PARSED arguments are, in canonical JSON (`hashArgs`, as the
 * executor's idempotency uses), so `{speed, positions}` and `{positions,
 * speed}` are one motion. An argument written out at its default value is a
 * different argument here, as it is for the executor's call-id check: the
 * repeat then runs as its own motion to the same absolute targets, queued
 * behind the first.
 *
 * Why it lives in the Live layer, not the executor: only the session knows
 * whether the model received a result. A report on Google's developer forum
 * (https://discuss.ai.google.dev/t/live-api-with-behavior-blocking-an-interrupting-turn-drops-the-pending-function-call-and-tool-call-cancellation-never-arrives/196216)
 * shows that with `behavior: BLOCKING` an interrupting turn drops the pending
 * call without a `toolCallCancellation`, the effect still commits, and the
 * model may call the same function again with a new id — which the
 * executor's call-id idempotency cannot recognise. A resumed session does the
 * same: its state predates any call still running when the connection died
 * (the Live API marks a session not resumable while the model executes
 * function calls — @google/genai `LiveServerSessionResumptionUpdate.resumable`).
 *
 * A repeat joins the motion (waits for its settlement, no second motion)
 * only while the model is replaying what it lost: from the loss until the
 * first motion request that repeats nothing (`repeatsIn`), within the join
 * window after the motion settled, and until the model is told the outcome
 * (`told`: the motion leaves the set at once). After that the same call is a
 * new motion: the model asks again knowing, or having moved on — the arm may
 * have been elsewhere since, and an old result for a new request would leave
 * the model believing a pose the arm does not hold.
 */
export class UndeliveredMotions {
  readonly #registry: Pick<ToolCatalogue, "get">;
  /** By the first call's id, in the order the results were lost. */
  readonly #entries = new Map<string, Entry>();
  readonly #joinWindowMs: number;
  readonly #now: () => number;

  constructor(registry: Pick<ToolCatalogue, "get">, options: UndeliveredMotionsOptions = {}) {
    this.#registry = registry;
    this.#joinWindowMs = options.joinWindowMs ?? DEFAULT_JOIN_WINDOW_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The motion key of a call, or undefined for reads, halts, unknown tools and arguments that do not parse (those never join). */
  keyOf(call: Pick<IdentifiedCall, "name" | "args">): string | undefined {
    const tool = this.#registry.get(call.name);
    if (tool?.blocking !== true) return undefined;
    const parsed = tool.args.safeParse(call.args ?? {});
    return parsed.success ? hashArgs(tool.name, parsed.data) : undefined;
  }

  /**
   * Records that the model will not receive this call's result: a repeat
   * may join it again. A motion recorded already (a joined repeat that was
   * itself lost) keeps its first call and cause: that is still the one motion.
   */
  miss(call: IdentifiedCall, response: Promise<FunctionResponse>, cause: MissCause): void {
    const known = this.#entries.get(call.id);
    if (known !== undefined) {
      // A call reusing an id started nothing of its own (the executor replays or rejects it): the first stays.
      if (known.call === call) known.joinable = true;
      return;
    }
    const key = this.keyOf(call);
    if (key === undefined) return;
    const entry: Entry = { key, call, cause, response, settled: undefined, settledAt: undefined, joinable: true };
    this.#entries.set(call.id, entry);
    // The executor never rejects; a rejection here would be a bug elsewhere, surfaced by the run's own await of the same promise.
    response.then(
      (r) => {
        entry.settled = r;
        entry.settledAt = this.#now();
      },
      () => undefined,
    );
  }

  /**
   * The untold motion each call of one toolCall repeats, in the model's
   * order. A motion request that repeats nothing is a newer request: it and
   * every call after it are new, and from then on nothing recorded so far
   * joins (a later loss opens its own motions to repeats again).
   */
  repeatsIn(calls: readonly Pick<IdentifiedCall, "name" | "args">[]): (UndeliveredMotion | undefined)[] {
    let newer = false;
    const repeats = calls.map((call) => {
      if (newer) return undefined;
      const key = this.keyOf(call);
      if (key === undefined) return undefined;
      const motion = this.#joinableBy(key);
      if (motion === undefined) newer = true;
      return motion;
    });
    if (newer) for (const e of this.#entries.values()) e.joinable = false;
    return repeats;
  }

  /**
   * The repeat's response: the missed motion's result under the repeat's id
   * and name, `joined_call_id` naming the call it joined, and words that say
   * nothing ran again. Resolves when the motion settles.
   */
  async join(repeat: IdentifiedCall, motion: UndeliveredMotion): Promise<FunctionResponse> {
    const original = await motion.response;
    const result = resultOf(original.response);
    const why = `this call repeats call ${motion.call.id}${actionWords(result)}, whose result did not reach you because ${CAUSE_WORDS[motion.cause]}.`;
    // Where the first call moved nothing (rejected, skipped, failed with evidence, blocked), say so: calling again is then a fresh attempt, not a repeat.
    const message = CALL_STATUSES[result.status].mayRerun
      ? `Not run: ${why} That call did not move the arm (${result.status}): ${result.message} Call it again to try anew.`
      : `Not run again: ${why} That motion ran once; its outcome: ${result.message}`;
    const joined: CallResult = { ...result, joined_call_id: motion.call.id, message };
    return {
      id: repeat.id,
      name: repeat.name,
      response: "error" in original.response ? { error: joined } : { output: joined },
    };
  }

  /** The model has now been told the outcome of the motion this call started: it leaves the set, and no repeat joins it any more. */
  told(call: Pick<IdentifiedCall, "id">): void {
    this.#entries.delete(call.id);
  }

  /** Every motion whose outcome the model has not been told. */
  untold(): UndeliveredMotion[] {
    return [...this.#entries.values()];
  }

  /** Resolves once every untold motion recorded so far has settled. */
  async allSettled(): Promise<void> {
    await Promise.allSettled([...this.#entries.values()].map((e) => e.response));
  }

  /** The newest motion under this key a repeat may join now. */
  #joinableBy(key: string): Entry | undefined {
    const now = this.#now();
    const open = [...this.#entries.values()].filter(
      (e) => e.key === key && e.joinable && (e.settledAt === undefined || now - e.settledAt <= this.#joinWindowMs),
    );
    return open.at(-1);
  }
}

/** The user-turn text that tells the model what it missed; `motions` must all be settled. */
export function missedOutcomesNote(motions: readonly UndeliveredMotion[]): string {
  const lines = motions.map((m) => {
    const r = m.settled ? resultOf(m.settled.response) : undefined;
    const outcome = r ? `${r.status}${actionWords(r)}: ${r.message}` : "not settled yet";
    return `- call ${m.call.id} ${m.call.name} ${JSON.stringify(m.call.args ?? {})} (${CAUSE_WORDS[m.cause]}): ${outcome}`;
  });
  return [
    "[armbridge] Results that never reached you. These calls were already under way when their results were lost; each ran at most once and the bridge will not run them again:",
    ...lines,
    "The arm is where these outcomes left it. Calling a function again now starts a new motion.",
  ].join("\n");
}

function actionWords(r: CallResult): string {
  return "action_id" in r && typeof r.action_id === "string" ? ` (${r.action_id})` : "";
}
