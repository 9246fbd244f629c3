import { createHash } from "node:crypto";
import type { HostedBridgePort, PresenceSnapshot } from "../../bridge/BridgePort.js";
import type { PresenceView } from "../../wire/PresenceView.js";

/** Operator presence as the API shows it; `required: false` on a bridge without it. */
export function presenceView(bridge: HostedBridgePort, now = Date.now()): PresenceView {
  return presenceViewOf(bridge.operator.presence?.snapshot(), now);
}

/** A presence snapshot as the API shows it; undefined on a bridge without presence. */
export function presenceViewOf(s: PresenceSnapshot | undefined, now: number): PresenceView {
  if (!s) return { required: false, timeout_ms: null, operator: null, missing: null, consoles: [] };
  return {
    required: true,
    timeout_ms: s.timeoutMs,
    operator: s.operator ?? null,
    missing: s.missing ?? null,
    consoles: s.consoles.map((c) => ({
      session: consoleTag(c.sessionId),
      operator: c.operator ?? null,
      last_beat_ms_ago: Math.max(0, now - c.lastBeatAt),
    })),
  };
}

/**
 * How a console is listed to everyone: a digest of its session id. The id is
 * what a heartbeat or a leave names, so it works as the console's own key;
 * listing it would let any reader of /v1/state end or rename that console.
 */
export function consoleTag(sessionId: string): string {
  return `t-${createHash("sha256").update(sessionId).digest("hex").slice(0, 16)}`;
}
