import { randomBytes } from "node:crypto";
import { ArmbridgeError } from "../../errors.js";
import type { CallClient } from "../../ledger/CallClient.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { CallResult, FunctionCall } from "./CallResult.js";
import { callIdNamespaceProblem } from "./callIdNamespace.js";
import { callIdProblem } from "./callIdProblem.js";
import { rejected } from "./callResults.js";
import { hashArgs } from "./hashArgs.js";
import { resultFromRow } from "./resultFromRow.js";
import { MAX_BATCH } from "../../wire/limits.js";

/** One call of a batch as admitted: its id (given or generated), its name, and a refusal when it must not run at all. */
export interface AdmittedCall {
  readonly id: string;
  readonly name: string;
  readonly refusal: CallResult | undefined;
}

/**
 * Which calls may run, and whether a call has run before: batch limits, call
 * id checks, joining a call already under way with the same id, and replaying
 * the recorded result of one that finished. The motion path never sees a call
 * that admission answered.
 */
export class CallAdmission {
  readonly #ledger: IntentLedger;
  readonly #log: Logger;
  /** Calls under way in this process, by call id: a duplicate id joins the first. */
  readonly #inFlight = new Map<string, { argsHash: string; tool: string; result: Promise<CallResult> }>();

  constructor(ledger: IntentLedger, log: Logger) {
    this.#ledger = ledger;
    this.#log = log;
  }

  /** Batch-level checks, before any call runs: size, id hygiene, ids in another client's namespace, ids repeated within the batch. */
  admitBatch(calls: readonly FunctionCall[], client?: CallClient): AdmittedCall[] {
    const ids = calls.map((c, i) =>
      typeof c.id === "string" && c.id.length > 0 ? c.id : `call_${i}_${randomBytes(4).toString("hex")}`,
    );
    const firstIndex = new Map<string, number>();
    ids.forEach((id, i) => {
      if (!firstIndex.has(id)) firstIndex.set(id, i);
    });
    return calls.map((call, i) => {
      const id = ids[i] ?? "";
      const name = typeof call.name === "string" ? call.name : String(call.name);
      return { id, name, refusal: this.#batchRefusal(id, name, i, firstIndex.get(id) !== i, client) };
    });
  }

  #batchRefusal(
    id: string,
    name: string,
    index: number,
    repeated: boolean,
    client: CallClient | undefined,
  ): CallResult | undefined {
    if (index >= MAX_BATCH)
      return rejected(name, "ARMB_ERR_ARGS_INVALID", [
        { path: "(batch)", code: "too_big", message: `at most ${MAX_BATCH} calls per batch` },
      ]);
    const problem = callIdProblem(id) ?? callIdNamespaceProblem(id, client);
    if (problem) {
      this.#log.info({ tool: name, id_length: id.length }, "call rejected: invalid call id");
      // The id is not echoed into the message: it is the very thing that cannot be stored or shown safely.
      return rejected(name, "ARMB_ERR_CALL_ID_INVALID", [
        {
          path: "id",
          code: "invalid_call_id",
          message: new ArmbridgeError("ARMB_ERR_CALL_ID_INVALID", { reason: problem }).message,
        },
      ]);
    }
    if (repeated) {
      return rejected(name, "ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH", [
        {
          path: "id",
          code: "duplicate",
          message: new ArmbridgeError("ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH", { callId: id }).message,
        },
      ]);
    }
    return undefined;
  }

  /**
   * A motion call by id, without running anything: the call under way with
   * this id (its result when it settles), or the recorded result of one that
   * finished — both marked `replayed` — or undefined when no motion runs or
   * was recorded under this id. What a caller whose request died uses to get
   * its outcome back.
   */
  attach(callId: string): { readonly tool: string; readonly result: Promise<CallResult> } | undefined {
    const running = this.#inFlight.get(callId);
    if (running) return { tool: running.tool, result: running.result.then((r) => ({ ...r, replayed: true })) };
    const recorded = this.#ledger.findByCallId(callId);
    if (recorded)
      return { tool: recorded.tool, result: Promise.resolve({ ...resultFromRow(recorded), replayed: true }) };
    return undefined;
  }

  /**
   * A motion call by id: joins the call already under way with this id,
   * returns the recorded result of one that finished (marked `replayed`), or
   * runs it. The same id with other arguments is rejected, never run.
   */
  async joinOrRun(
    callId: string,
    tool: string,
    args: unknown,
    run: (argsHash: string) => Promise<CallResult>,
  ): Promise<CallResult> {
    const argsHash = hashArgs(tool, args);
    const running = this.#inFlight.get(callId);
    if (running) {
      if (running.argsHash !== argsHash || running.tool !== tool) return reusedId(callId, tool, undefined);
      return { ...(await running.result), replayed: true };
    }
    const recorded = this.#ledger.findByCallId(callId);
    if (recorded) {
      if (recorded.argsHash !== argsHash || recorded.tool !== tool) return reusedId(callId, tool, recorded.actionId);
      this.#log.info(
        { call_id: callId, action_id: recorded.actionId },
        "call id seen before: returning the recorded result, executing nothing",
      );
      return { ...resultFromRow(recorded), replayed: true };
    }
    const result = run(argsHash);
    this.#inFlight.set(callId, { argsHash, tool, result });
    try {
      return await result;
    } finally {
      this.#inFlight.delete(callId);
    }
  }
}

function reusedId(callId: string, tool: string, actionId: string | undefined): CallResult {
  const e = new ArmbridgeError("ARMB_ERR_CALL_ID_REUSED", { callId, tool, actionId: actionId ?? "in flight" });
  return rejected(tool, "ARMB_ERR_CALL_ID_REUSED", [{ path: "id", code: "reused", message: e.message }]);
}
