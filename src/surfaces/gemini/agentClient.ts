import { randomBytes } from "node:crypto";
import { basename } from "node:path";
import type { CallClient } from "../../bridge/BridgePort.js";
import { normalizeClient } from "../../bridge/portVocabulary.js";

/**
 * Who an agent run is in the ledger and the console: kind `agent`, named by
 * `--client NAME` or else by its model (`replay:<file name>` for a replay),
 * with a fresh session id per run, so two runs of one model tell apart.
 */
export function agentClient(options: {
  readonly model: string;
  readonly name?: string | undefined;
  readonly session?: string | undefined;
}): CallClient {
  const model = options.model.startsWith("replay:")
    ? `replay:${basename(options.model.slice("replay:".length))}`
    : options.model;
  return normalizeClient({
    kind: "agent",
    name: options.name ?? model,
    session: options.session ?? randomBytes(4).toString("hex"),
  });
}
