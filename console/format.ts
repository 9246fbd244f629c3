import type { InFlightView } from "./wire.js";

/** Numbers and times as an operator reads them. */

export function fixed(x: number | undefined | null, digits = 3): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "\u2014";
}

export function degrees(rad: number): string {
  return `${((rad * 180) / Math.PI).toFixed(1)}\u00b0`;
}

/** "4 s", "3 min", "2 h": how long ago, never negative. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function ago(at: number, now = Date.now()): string {
  return `${elapsed(now - at)} ago`;
}

export function clockTime(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** Who sent a call, as the operator reads it: "agent gemini-2.5-flash (session 3f2a…)"; rows from before clients were recorded say so. */
export function clientLabel(
  client: { readonly kind: string; readonly name: string; readonly session?: string | undefined } | null | undefined,
): string {
  if (!client) return "a caller not recorded";
  return `${client.kind} ${client.name}${client.session ? ` (session ${client.session})` : ""}`;
}

/** A value's JSON, for showing args; never throws (a cycle cannot arrive over JSON, but be sure). */
export function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Which client is moving the arm right now (GET /v1/state in_flight); nothing claimed without the live stream. */
export function movingNowText(inFlight: readonly InFlightView[] | undefined): string {
  if (inFlight === undefined) return "";
  if (inFlight.length === 0) return "Nothing is moving the arm now.";
  return `Moving the arm now: ${inFlight.map((f) => `${f.tool} on ${f.resources.map((r) => r.replace(/^joint:/, "")).join(", ")} for ${clientLabel(f.client)}, since ${clockTime(f.started_at)}`).join("; ")}`;
}
