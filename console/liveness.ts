import { armConditionText } from "./armConditionWords.js";
import { $, el } from "./dom.js";
import type { StreamStatus } from "./eventStream.js";
import { clockTime } from "./format.js";
import type { LinkView, StateView } from "./wire.js";

export type PillTone = "ok" | "warn" | "bad" | "moving" | "unknown";
export interface Pill {
  readonly tone: PillTone;
  readonly text: string;
  /** Since when, how many tries: shown after `text` where there is room, left off on a phone (the header keeps to a quarter of it). */
  readonly detail?: string;
}

/** What the console knows and since when: everything a pill or a gauge needs to be honest. */
export interface Liveness {
  readonly stream: StreamStatus;
  readonly state: StateView | undefined;
  /** Browser-clock ms of the newest arm sample: receipt time minus its age. */
  readonly sampleAt: number | undefined;
  readonly staleAfterMs: number;
  readonly now: number;
}

/*
 * Pill texts hold clock times, never ticking counters: each pill is an
 * aria-live region, and a counter would be re-announced every second.
 */

export function streamPill(s: StreamStatus): Pill {
  switch (s.state) {
    case "connecting":
      return { tone: "unknown", text: "EVENTS: CONNECTING" };
    case "live":
      return { tone: "ok", text: "EVENTS: LIVE" };
    case "reconnecting":
      return { tone: "bad", text: "EVENTS: LOST", detail: ` since ${clockTime(s.since)}, retrying (try ${s.attempt})` };
    case "refused":
      return { tone: "bad", text: "EVENTS: TOKEN REFUSED" };
  }
}

/** Slack over stale_after_ms for the hop to the browser (state events are throttled to one per 200 ms). */
const DELIVERY_SLACK_MS = 300;

/** True when the arm values on screen may no longer be the arm's: shown greyed with "last seen". */
export function valuesStale(l: Liveness): boolean {
  if (l.stream.state !== "live" || !l.state || l.sampleAt === undefined) return true;
  if (l.state.stale) return true;
  if (l.state.link && l.state.link.state !== "connected") return true;
  return l.now - l.sampleAt > l.staleAfterMs + DELIVERY_SLACK_MS;
}

function linkText(link: LinkView): Pill {
  switch (link.state) {
    case "connected": {
      // An arm that came back as a new incarnation (a power loss, a reboot) says so: what was in flight was cut short.
      const back =
        link.last_loss?.incarnation_changed && link.last_loss.returned_at !== undefined
          ? ` (back after a power loss or restart at ${clockTime(link.last_loss.returned_at)})`
          : "";
      const notReady = armConditionText(link);
      if (notReady) return { tone: "bad", text: notReady, detail: ` since ${clockTime(link.since)}${back}` };
      return { tone: "ok", text: "ARM LINK: CONNECTED", detail: back };
    }
    case "reconnecting": {
      if (link.error_code === "ARMB_ERR_DEVICE_REPLACED")
        return {
          tone: "bad",
          text: `ARM LINK: ANOTHER DEVICE ANSWERED since ${clockTime(link.since)} — not driven; reconnect the arm`,
        };
      const next = link.next_attempt_at !== undefined ? `, next try ${clockTime(link.next_attempt_at)}` : "";
      return {
        tone: "bad",
        text: "ARM LINK: RECONNECTING",
        detail: ` since ${clockTime(link.since)}${link.attempt !== undefined ? ` (attempt ${link.attempt}${next})` : ""}`,
      };
    }
    case "down":
      return { tone: "bad", text: "ARM LINK: DOWN", detail: ` since ${clockTime(link.since)}` };
  }
}

export function linkPill(l: Liveness): Pill {
  // The bridge's word on its link is only as fresh as our stream to the bridge.
  if (l.stream.state !== "live") return { tone: "unknown", text: "ARM LINK: NOT KNOWN (no events from the bridge)" };
  if (!l.state) return { tone: "unknown", text: "ARM LINK: NOT KNOWN YET" };
  if (l.state.link) {
    const p = linkText(l.state.link);
    if (l.state.link.state === "connected" && valuesStale(l))
      return {
        tone: "bad",
        text: "ARM LINK: CONNECTED, NO STATUS",
        detail: ` since ${l.sampleAt === undefined ? "start" : clockTime(l.sampleAt)}`,
      };
    return p;
  }
  // A bridge without the link field: the status age is all there is.
  return valuesStale(l)
    ? {
        tone: "bad",
        text: "ARM LINK: NO STATUS",
        detail: ` since ${l.sampleAt === undefined ? "start" : clockTime(l.sampleAt)}`,
      }
    : { tone: "ok", text: "ARM LINK: STATUS ARRIVING" };
}

export function armPill(l: Liveness): Pill {
  const s = l.state;
  if (!s || l.sampleAt === undefined) return { tone: "unknown", text: "ARM: NO DATA YET" };
  // A latched bridge is the first thing to know about the arm: it takes no motion until released (the bar below says by whom).
  const halted = s.halted ? "ARM: HALTED" : "";
  if (valuesStale(l))
    return halted
      ? { tone: "bad", text: halted, detail: ` \u00b7 LAST SEEN ${clockTime(l.sampleAt)}` }
      : { tone: "unknown", text: `ARM: LAST SEEN ${clockTime(l.sampleAt)}`, detail: " (values below are old)" };
  const moving = s.moving.length ? `MOVING: ${s.moving.join(", ")}` : "";
  if (halted)
    return {
      tone: "bad",
      text: [halted, ...(s.faults.length ? [`FAULT: ${s.faults.join(", ")}`] : []), ...(moving ? [moving] : [])].join(
        " \u00b7 ",
      ),
    };
  // A fault on one axis must not hide another axis in motion.
  if (s.faults.length)
    return { tone: "bad", text: `ARM FAULT: ${s.faults.join(", ")}${moving ? ` \u00b7 ${moving}` : ""}` };
  if (moving) return { tone: "moving", text: `ARM ${moving}` };
  return { tone: "ok", text: "ARM: STILL" };
}

export interface Decisions {
  readonly unknowns: number;
  readonly approvals: number;
  /** Only the live stream can say what waits now. */
  readonly known: boolean;
  /** A latched halt waits for an operator too: nothing is "NOTHING WAITING" while it holds. */
  readonly halted: boolean;
}

export function decisionsPill({ unknowns, approvals, known, halted }: Decisions): Pill {
  if (!known) return { tone: "unknown", text: "DECISIONS: NOT KNOWN (no events from the bridge)" };
  const parts: string[] = [];
  if (halted) parts.push("RELEASE");
  if (approvals) parts.push(`${approvals} TO APPROVE`);
  if (unknowns) parts.push(`${unknowns} TO CONFIRM`);
  return parts.length
    ? { tone: "warn", text: `WAITING FOR YOU: ${parts.join(", ")}` }
    : { tone: "ok", text: "NOTHING WAITING" };
}

/** A pill on the page: its text, and its detail in a span a phone leaves off. */
export function setPill(id: string, pill: Pill): void {
  const p = $(id);
  const cls = `pill ${pill.tone}`;
  if (p.className !== cls) p.className = cls;
  const full = pill.text + (pill.detail ?? "");
  if (p.textContent === full) return;
  p.replaceChildren(
    document.createTextNode(pill.text),
    ...(pill.detail ? [el("span", { cls: "pill-detail", text: pill.detail })] : []),
  );
}
