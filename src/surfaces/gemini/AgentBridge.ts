import type { Executor } from "../../executor/Executor.js";
import type { ExecutorEvent } from "../../executor/ExecutorEvent.js";
import type { FunctionDeclaration } from "../../executor/toolContract/ToolRegistry.js";

/** What an agent run knows of one tool: whether it moves the arm, and its argument schema. */
export interface AgentTool {
  readonly name: string;
  /** A motion (locks, ledger, settlement) rather than a read or a halt. */
  readonly blocking: boolean;
  readonly args: {
    safeParse(value: unknown): { readonly success: true; readonly data: unknown } | { readonly success: false };
  };
}

/** The tools an agent run offers its model, and what it may look up about each. */
export interface AgentToolCatalog {
  declarations(): FunctionDeclaration[];
  get(name: string): AgentTool | undefined;
}

/**
 * The part of a bridge an agent run uses: execute calls, the tools, and the
 * executor's progress events. Two implementations: a Bridge in this process
 * (`agentBridgeOf`, the embedded mode), and a running serve reached over its
 * HTTP API (`RemoteBridge`, `--bridge URL`) — the same agent loop drives
 * either, and everything that matters (locks, ledger, quarantine,
 * approvals) lives in the bridge, not in the run.
 */
export interface AgentBridge {
  readonly executor: Pick<Executor, "execute">;
  readonly registry: AgentToolCatalog;
  onEvent(listener: (e: ExecutorEvent) => void): () => void;
}
