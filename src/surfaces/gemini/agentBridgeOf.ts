import type { Bridge } from "../../bridge/Bridge.js";
import type { CallClient } from "../../ledger/CallClient.js";
import type { AgentBridge } from "./AgentBridge.js";

/**
 * A bridge in this process as an agent's bridge (the embedded mode): every
 * call it executes is recorded under `client`, as serve records an attached
 * agent's.
 */
export function agentBridgeOf(
  bridge: Pick<Bridge, "executor" | "registry" | "onEvent">,
  client: CallClient,
): AgentBridge {
  return {
    executor: {
      execute: (calls, options = {}) =>
        bridge.executor.execute(calls, { ...options, client: options.client ?? client }),
    },
    registry: bridge.registry,
    onEvent: (listener) => bridge.onEvent(listener),
  };
}
