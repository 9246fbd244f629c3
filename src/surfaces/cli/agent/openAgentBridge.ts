import { MIME_TYPES } from "../../../imaging/encodeImage.js";
import { ArmbridgeError } from "../../../errors.js";
import type { BridgePort, CallClient } from "../../../bridge/BridgePort.js";
import type { Logger } from "../../../observability/logger.js";
import { RemoteBridge } from "../../attach/RemoteBridge.js";
import type { BridgeFlagOptions } from "../../runtime/bridgeFlags.js";
import { generateToken } from "../../http/bearerToken.js";
import { ProcessScope } from "../../runtime/ProcessScope.js";
import { startServing, type Serving } from "../../runtime/startServing.js";
import { agentBridgeOf } from "../../gemini/agentBridgeOf.js";
import type { CameraFeed } from "../../gemini/CameraStreamer.js";

/** Where an agent's calls go: a running serve (`--bridge`), or a bridge of its own in this process with its own console. */
export type AgentTarget =
  | { readonly kind: "attached"; readonly url: string; readonly token: string }
  | {
      readonly kind: "embedded";
      readonly flags: BridgeFlagOptions;
      readonly host: string;
      readonly port: number;
      readonly token: string | undefined;
    };

export interface OpenedAgentBridge {
  readonly bridge: BridgePort;
  /**
   * Ends every wait at once (a stop signal). Embedded: the executor's waits
   * end, calls in flight answer unknown and stay `started` for the next
   * start. Attached: nothing here — the run's own signal asks serve to end
   * the waits, and serve settles the motions.
   */
  stopWaits(): void;
  /** --stream-camera: the bridge's camera as a Live video feed, checked to exist before the session opens. */
  cameraFeed(chosen: { readonly name: string; readonly fps: number }): CameraFeed;
  /** What to tell a person about an unknown result, naming where to confirm it. */
  unknownAdvice(actionId: string, stoppedBy: string | undefined): string;
  close(): Promise<void>;
}

/**
 * Opens the agent's bridge. Attached: reaches serve and says so. Embedded:
 * binds the console's port first, starts the bridge (its approval gates are
 * answerable: the console is there), serves the console on it, and prints its
 * URL with the token — no mode moves an arm without an operator surface.
 */
export async function openAgentBridge(
  target: AgentTarget,
  client: CallClient,
  logger: Logger,
  say: (line: string) => void,
): Promise<OpenedAgentBridge> {
  if (target.kind === "attached") {
    const remote = await RemoteBridge.connect({ url: target.url, token: target.token, client, logger });
    say(
      `armbridge agent: attached to ${remote.url} as ${client.kind} ${client.name} (session ${client.session ?? "-"}); watch it and stop it in that serve's console`,
    );
    return {
      bridge: remote,
      stopWaits: () => undefined,
      cameraFeed: () => {
        throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
          message: "--stream-camera needs an embedded bridge (--serial or --ros)",
        });
      },
      unknownAdvice: (actionId) =>
        `${actionId} is unknown: check the arm, then confirm it in the console of ${remote.url} (or \`armbridge confirm ${actionId} --outcome reached|partial|not_moved --operator NAME --url ${remote.url}\`)`,
      close: () => remote.close(),
    };
  }
  const scope = new ProcessScope();
  let serving: Serving | undefined;
  try {
    serving = await startServing({
      scope,
      http: {
        host: target.host,
        port: target.port,
        token: target.token ?? generateToken(),
        operatorToken: generateToken(),
        logger,
      },
      bridge: { ...target.flags, logger },
      onBridge: (bridge) => {
        for (const w of bridge.startupWarnings) say(`armbridge agent: WARNING: ${w}`);
      },
    });
    if (!serving) throw new Error("agent: started without a stop signal, yet stopped");
    for (const w of serving.http.security.warnings) say(`armbridge agent: warning: ${w.message}`);
  } catch (error) {
    await scope.close();
    throw error;
  }
  const consoleUrl = `${serving.http.url}/console#token=${encodeURIComponent(serving.http.operatorToken)}`;
  say(`armbridge agent: console ${consoleUrl} (watch, HALT, approve, confirm while this agent drives the arm)`);
  const local = serving.bridge;
  // Waits end first, so the console's server is not held open by a call.
  scope.add("waits", () => local.endWaits());
  return {
    bridge: agentBridgeOf(local, client),
    stopWaits: () => local.endWaits(),
    cameraFeed: (chosen) => {
      if (local.cameras.get(chosen.name) === undefined) {
        throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", {
          message: `--stream-camera ${JSON.stringify(chosen.name)}: no such camera; configured: ${local.cameras.names().join(", ") || "none"}`,
        });
      }
      return {
        camera: chosen.name,
        fps: chosen.fps,
        grab: async (signal) => {
          const frame = await local.cameras.capture(chosen.name, signal);
          return { bytes: frame.bytes, mimeType: MIME_TYPES[frame.format] };
        },
      };
    },
    unknownAdvice: (actionId, stoppedBy) =>
      stoppedBy !== undefined && local.actions.get(actionId)?.state === "started"
        ? `${actionId} was in flight when ${stoppedBy} stopped the run: its row stays started and the next bridge start settles it from the arm`
        : `${actionId} is unknown: check the arm, then confirm it (the console above while this runs; afterwards \`armbridge serve\` on this arm and its console, or \`armbridge confirm ${actionId} --outcome reached|partial|not_moved --operator NAME\`)`,
    close: () => scope.close(),
  };
}
