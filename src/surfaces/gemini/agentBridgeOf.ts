import type { BridgePort, CallClient } from "../../bridge/BridgePort.js";

/**
 * A bridge in this process as an agent's bridge (the embedded mode): every
 * call it executes is recorded under `client`, as serve records an attached
 * agent's.
 */
export function agentBridgeOf(bridge: BridgePort, client: CallClient): BridgePort {
  return {
    execute: (calls, options = {}) => bridge.execute(calls, { ...options, client: options.client ?? client }),
    tools: bridge.tools,
    onEvent: (listener) => bridge.onEvent(listener),
  };
}
