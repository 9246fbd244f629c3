import { isCallEvent } from "../../bridge/portVocabulary.js";
import type { BridgePort } from "../../bridge/BridgePort.js";
import type { AgentEvent, ProgressListener } from "./AgentEvent.js";
import { describeAgentEvent } from "./describeAgentEvent.js";
import { TranscriptWriter } from "./TranscriptWriter.js";

/**
 * Where a run's story goes: progress lines (with the structured event) and
 * the transcript. It follows executor events of this run's calls only, since
 * other surfaces (HTTP, console) may drive the same bridge at the same time.
 */
export class AgentReporter {
  readonly #transcript: TranscriptWriter | undefined;
  readonly #onProgress: ProgressListener | undefined;
  readonly #ours = new Set<string>();
  readonly #unsubscribe: () => void;

  constructor(
    bridge: Pick<BridgePort, "onEvent">,
    options: { transcriptPath?: string | undefined; onProgress?: ProgressListener | undefined },
  ) {
    this.#transcript = options.transcriptPath ? new TranscriptWriter(options.transcriptPath) : undefined;
    this.#onProgress = options.onProgress;
    this.#unsubscribe = bridge.onEvent((e) => {
      if (!isCallEvent(e) || !this.#ours.has(e.callId)) return;
      this.write("call_event", { event: e });
      this.report({ type: "call", event: e });
    });
  }

  /** Follow these call ids' executor events from now on. */
  track(callIds: Iterable<string>): void {
    for (const id of callIds) this.#ours.add(id);
  }

  report(event: AgentEvent): void {
    const line = describeAgentEvent(event);
    if (line !== undefined) this.#onProgress?.(line, event);
  }

  write(type: string, fields: Readonly<Record<string, unknown>>): void {
    this.#transcript?.write(type, fields);
  }

  close(): void {
    this.#unsubscribe();
    this.#transcript?.close();
  }
}
