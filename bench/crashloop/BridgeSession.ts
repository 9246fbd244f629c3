import { setTimeout as sleep } from "node:timers/promises";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { unreachable } from "../../src/surfaces/client/nodeFetch.js";
import { ArmbridgeClient } from "../../src/wire/client/ArmbridgeClient.js";
import { resultOf, type FunctionResponse } from "../../src/surfaces/toFunctionResponse.js";
import type { CallRecord } from "./CallPlanner.js";
import { ServeStartFailed, spawnServe, type ServeChild } from "./ServeChild.js";

export type WireCall = { readonly id: string; readonly name: "move_joints"; readonly args: CallRecord["args"] };
export type BatchOutcome =
  | { readonly kind: "answered"; readonly results: readonly CallResult[] }
  | { readonly kind: "lost"; readonly reason: string };

export interface BridgeSessionOptions {
  readonly link: string;
  readonly dataDir: string;
  readonly token: string;
  readonly logFile: string;
  readonly readyTimeoutMs: number;
  readonly say: (line: string) => void;
}

/**
 * The `armbridge serve` child the crash loop kills and restarts on one data
 * dir, and the calls it posts to it: started (tried again if it exits before
 * its ready line), killed, and the figures of both — restart → ready times,
 * calls sent, answers lost to kills, refusals at admission.
 */
export class BridgeSession {
  readonly restartToReadyMs: number[] = [];
  startRetries = 0;
  /** Calls sent (batches' entries, re-sends included). */
  sent = 0;
  /** Calls whose answer was lost to a kill. */
  answersLost = 0;
  /** Calls refused at admission on their first answer, by error code (probes not counted: they are meant to be refused). */
  readonly refusedAtAdmission: Record<string, number> = {};
  readonly #o: BridgeSessionOptions;
  #bridge: ServeChild | undefined;

  constructor(options: BridgeSessionOptions) {
    this.#o = options;
  }

  get readyMs(): number {
    return this.#bridge?.readyMs ?? NaN;
  }

  api(): ArmbridgeClient {
    if (!this.#bridge) throw new Error("the bridge is not running");
    return new ArmbridgeClient({ url: this.#bridge.url, token: this.#o.token, connectionError: unreachable });
  }

  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.#bridge = await spawnServe({
          link: this.#o.link,
          dataDir: this.#o.dataDir,
          token: this.#o.token,
          logFile: this.#o.logFile,
          logLevel: "debug",
          readyTimeoutMs: this.#o.readyTimeoutMs,
        });
        this.restartToReadyMs.push(this.#bridge.readyMs);
        return;
      } catch (error) {
        if (!(error instanceof ServeStartFailed) || attempt >= 3) throw error;
        this.startRetries++;
        this.#o.say(`serve did not start (${error.message}); trying again`);
        await sleep(500);
      }
    }
  }

  /** SIGKILL; nothing of the process runs after this resolves. */
  async kill(): Promise<void> {
    await this.#bridge?.kill();
  }

  /** A clean stop (SIGTERM), the end of the run. */
  async stop(graceMs: number): Promise<void> {
    await this.#bridge?.stop(graceMs);
    this.#bridge = undefined;
  }

  async post(batch: readonly WireCall[], deadlineMs: number): Promise<BatchOutcome> {
    this.sent += batch.length;
    try {
      const body = await this.api().call("calls", { body: { calls: batch, deadline_ms: deadlineMs } });
      // The contract checks the fields every result shares; the rest (resources, pose) are the executor's CallResult as sent.
      return {
        kind: "answered",
        results: body.responses.map((r) => resultOf(r.response as FunctionResponse["response"])),
      };
    } catch (error) {
      return { kind: "lost", reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** What a batch's answer (or its loss) teaches about its calls. */
  absorb(records: readonly CallRecord[], outcome: BatchOutcome): void {
    if (outcome.kind === "lost") {
      for (const r of records) if (!r.answered) this.answersLost++;
      return;
    }
    records.forEach((r, i) => {
      const result = outcome.results[i];
      if (!result) return;
      r.answered = true;
      if (result.status === "rejected" && !r.probe) {
        const code = ("error_code" in result ? result.error_code : undefined) ?? "(no code)";
        this.refusedAtAdmission[code] = (this.refusedAtAdmission[code] ?? 0) + 1;
      }
      if ("action_id" in result && typeof result.action_id === "string") r.knownActionId = result.action_id;
    });
  }
}

export function wire(record: CallRecord): WireCall {
  return { id: record.id, name: "move_joints", args: record.args };
}
