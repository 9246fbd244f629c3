import type { ActionRow, CallResult, ExecutorEvent } from "../../bridge/BridgePort.js";
import { isCallEvent, paceWords } from "../../bridge/portVocabulary.js";
import type { AgentEvent } from "../gemini/AgentEvent.js";
import { describeModelLinkEvent } from "../gemini/ModelLinkEvent.js";

/** What the narrator knows about one call of the session. */
interface CallTrack {
  readonly id: string;
  readonly tool: string;
  readonly turn: number;
  resources: readonly string[];
  queuedAt?: number;
  startedAt?: number;
  actionId?: string;
  budgetMs?: number;
  timedOutAt?: number;
  settledAt?: number;
  result?: CallResult;
}

/** The four things the demo exists to show, as found in the session (not as scripted). */
export interface SessionFindings {
  readonly parallel?: { readonly a: string; readonly b: string; readonly overlapMs: number } | undefined;
  readonly queued?:
    | { readonly first: string; readonly second: string; readonly joints: readonly string[]; readonly gapMs: number }
    | undefined;
  readonly timeoutObserved?:
    | { readonly call: string; readonly budgetMs: number; readonly observedAfterMs: number; readonly actionId: string }
    | undefined;
  readonly unknown?:
    { readonly call: string; readonly actionId: string; readonly resources: readonly string[] } | undefined;
}

export const SESSION_FINISHED_MARKER = "=== session finished ===";

/**
 * Turns an agent session's events into a narrative people can follow:
 * each model turn, each call's start and end on one clock (ms since the
 * session began), and after each turn what its timing proves — calls on
 * disjoint joints overlapping, calls on a shared joint one after the other,
 * a timed-out wait settled by observing the arm, an action left unknown.
 * Everything it claims is computed from the events it saw.
 */
export class SessionNarrator {
  readonly #write: (line: string) => void;
  readonly #t0: number;
  readonly #now: () => number;
  readonly #consoleUrl: string;
  readonly #calls = new Map<string, CallTrack>();
  #turn = 0;
  readonly #analysed = new Set<number>();
  #findings: {
    parallel?: SessionFindings["parallel"];
    queued?: SessionFindings["queued"];
    timeoutObserved?: SessionFindings["timeoutObserved"];
    unknown?: SessionFindings["unknown"];
  } = {};

  constructor(options: { write: (line: string) => void; consoleUrl: string; now?: () => number }) {
    this.#write = options.write;
    this.#now = options.now ?? Date.now;
    this.#t0 = this.#now();
    this.#consoleUrl = options.consoleUrl;
  }

  /** For runAgent's `onProgress`. */
  readonly onAgentEvent = (_line: string, event: AgentEvent): void => {
    switch (event.type) {
      case "model_turn":
        // A turn whose calls did not all report settling (e.g. rejected as a batch duplicate) is analysed now.
        this.#analyseTurn(this.#turn);
        this.#turn = event.turn;
        if (event.calls.length === 0) {
          this.#say(`Turn ${event.turn} — the model answers: ${oneLine(event.text)}`);
        } else {
          this.#say(
            `Turn ${event.turn} — the model calls ${event.calls.map((c) => `${c.name}#${c.id} ${compactArgs(c.args)}`).join(", ")}`,
          );
          for (const c of event.calls)
            this.#calls.set(c.id, { id: c.id, tool: c.name, turn: event.turn, resources: [] });
        }
        if (event.note) this.#say(`  (${event.note})`);
        break;
      case "call":
        this.#onCallEvent(event.event);
        break;
      case "responses":
        this.#analyseTurn(event.turn);
        break;
      case "cancelled":
        this.#say(
          `  ${this.#stamp()}  the server cancelled ${event.callIds.join(", ")}: our wait ends, the motions go on and are settled by observation`,
        );
        break;
      case "cancelled_settled":
        break;
      case "interrupted":
        this.#say(
          `  ${this.#stamp()}  a turn interrupted ${event.callIds.join(", ")}: our wait ends, the motions go on; the model will be told their outcome`,
        );
        break;
      case "joined":
        this.#say(
          `  ${this.#stamp()}  ${event.call.id} repeats ${event.joinedCallId}, whose result the model never got: joined, not run again`,
        );
        break;
      case "missed_told":
        this.#say(
          `  ${this.#stamp()}  the model is told the outcome of ${event.callIds.join(", ")}, which it never received`,
        );
        break;
      case "user_turn":
        this.#say(`  ${this.#stamp()}  the user says: ${oneLine(event.text)}`);
        break;
      case "link":
        this.#say(`  ${this.#stamp()}  ${describeModelLinkEvent(event.event)}`);
        break;
      case "ended":
        this.#analyseTurn(this.#turn);
        this.#say(`The agent run ended (${event.ended}) after ${event.turns} model turn(s).`);
        break;
    }
  };

  /** An action settled outside the session: an operator's confirmation, or a later observation. */
  actionResolved(row: ActionRow): void {
    const who = row.operator ? ` by ${row.operator}` : row.settledBy === "observation" ? " by a later observation" : "";
    this.#say(
      `${this.#stamp()}  action ${row.actionId} (${row.tool} on ${row.resources.map(shortName).join(", ")}) is now ${row.state}${who}; its joints are free again`,
    );
  }

  findings(): SessionFindings {
    return { ...this.#findings };
  }

  /** The closing summary, then the marker line tests and scripts wait for. */
  summary(stillUnknown: (actionId: string) => boolean): void {
    const f = this.#findings;
    const box = (seen: boolean): string => (seen ? "[x]" : "[ ]");
    this.#say("What this session showed:");
    this.#say(
      `  ${box(!!f.parallel)} parallel calls on disjoint joints ran together` +
        (f.parallel
          ? `: ${f.parallel.a} and ${f.parallel.b} overlapped for ${f.parallel.overlapMs} ms`
          : " (not seen)"),
    );
    this.#say(
      `  ${box(!!f.queued)} calls on a shared joint were queued` +
        (f.queued
          ? `: ${f.queued.second} started ${f.queued.gapMs} ms after ${f.queued.first} ended (${f.queued.joints.map(shortName).join(", ")})`
          : " (not seen)"),
    );
    this.#say(
      `  ${box(!!f.timeoutObserved)} a timeout was settled by observation` +
        (f.timeoutObserved
          ? `: ${f.timeoutObserved.call} timed out after ${f.timeoutObserved.budgetMs} ms, the arm was observed to reach the target ${f.timeoutObserved.observedAfterMs} ms later -> done`
          : " (not seen)"),
    );
    const pending = f.unknown && stillUnknown(f.unknown.actionId);
    this.#say(
      `  ${box(!!f.unknown)} an unknown outcome awaits an operator` +
        (f.unknown
          ? `: ${f.unknown.actionId} (${f.unknown.call}, ${f.unknown.resources.map(shortName).join(", ")}) ${pending ? `is waiting for confirmation at ${this.#consoleUrl}` : "was already settled"}`
          : " (not seen)"),
    );
    this.#say(SESSION_FINISHED_MARKER);
  }

  #onCallEvent(e: ExecutorEvent): void {
    if (e.type === "link_returned") {
      this.#say(
        `  ! the arm's link came back${e.loss.incarnation_changed ? " as a new incarnation (it lost power or restarted)" : ""}: ${e.loss.returned_detail ?? e.loss.reason}; nothing is re-sent`,
      );
      return;
    }
    if (!isCallEvent(e)) return;
    const t = this.#now();
    const c = this.#calls.get(e.callId) ?? { id: e.callId, tool: e.tool, turn: this.#turn, resources: [] };
    this.#calls.set(e.callId, c);
    switch (e.type) {
      case "queued":
        this.#onQueued(t, c, e.resources);
        break;
      case "started":
        c.startedAt = t;
        c.actionId = e.actionId;
        c.budgetMs = e.budgetMs;
        c.resources = e.resources;
        this.#line(
          t,
          c,
          `starts ${e.actionId} on ${e.resources.map(shortName).join(", ")} (waits up to ${e.budgetMs} ms)`,
        );
        break;
      case "paced":
        this.#line(t, c, `the arm is ${paceWords(e.pace)}`);
        break;
      case "timed_out":
        c.timedOutAt = t;
        this.#line(
          t,
          c,
          `wait timed out after ${c.budgetMs ?? "?"} ms — the motion goes on; it is not stopped and not re-sent; observing the arm`,
        );
        break;
      case "settled":
        c.settledAt = t;
        c.result = e.result;
        this.#line(t, c, settledWords(e.result));
        if (e.result.status === "unknown") {
          const what = e.result.resources.map(shortName).join(", ");
          this.#say(
            `             ! ${what} quarantined: nothing will move ${e.result.resources.length === 1 ? "it" : "them"} until an operator confirms ${e.result.action_id}`,
          );
          this.#say(`             ! confirm at ${this.#consoleUrl}`);
        }
        // The turn's timing story is told as soon as its last call has settled.
        if ([...this.#calls.values()].every((o) => o.turn !== c.turn || o.settledAt !== undefined))
          this.#analyseTurn(c.turn);
        break;
      case "approval_requested":
        this.#line(
          t,
          c,
          `waits for an operator's approval (${e.approval.id}); nothing sent — approve or decline at ${this.#consoleUrl}`,
        );
        break;
      case "approval_resolved":
        this.#line(t, c, `approval ${e.approval.decision}${e.approval.operator ? ` by ${e.approval.operator}` : ""}`);
        break;
    }
  }

  /** A call queued: said only when it waits behind calls holding a joint it needs. */
  #onQueued(t: number, c: CallTrack, resources: readonly string[]): void {
    c.queuedAt = t;
    c.resources = resources;
    const ahead = [...this.#calls.values()].filter(
      (o) =>
        o !== c &&
        o.queuedAt !== undefined &&
        o.settledAt === undefined &&
        o.resources.some((r) => resources.includes(r)),
    );
    if (ahead.length === 0) return;
    const shared = [...new Set(ahead.flatMap((o) => o.resources.filter((r) => resources.includes(r))))];
    this.#line(
      t,
      c,
      `waits: ${shared.map(shortName).join(", ")} ${shared.length === 1 ? "is" : "are"} held by ${ahead.map((o) => o.id).join(", ")}`,
    );
  }

  #analyseTurn(turn: number): void {
    if (turn === 0 || this.#analysed.has(turn)) return;
    this.#analysed.add(turn);
    const calls = [...this.#calls.values()].filter(
      (c) => c.turn === turn && c.startedAt !== undefined && c.settledAt !== undefined,
    );
    for (let i = 0; i < calls.length; i++) {
      for (let j = i + 1; j < calls.length; j++) {
        const a = calls[i];
        const b = calls[j];
        if (!a || !b) continue;
        const shared = a.resources.filter((r) => b.resources.includes(r));
        const [aStart, aEnd, bStart, bEnd] = [
          this.#rel(a.startedAt),
          this.#rel(a.settledAt),
          this.#rel(b.startedAt),
          this.#rel(b.settledAt),
        ];
        if (shared.length === 0) {
          const overlapMs = Math.min(aEnd, bEnd) - Math.max(aStart, bStart);
          if (overlapMs > 0) {
            this.#say(
              `  => ${a.id} [+${aStart}..+${aEnd} ms] and ${b.id} [+${bStart}..+${bEnd} ms] ran together on disjoint joints: ${overlapMs} ms of overlap`,
            );
            this.#findings.parallel ??= { a: a.id, b: b.id, overlapMs };
          }
        } else {
          const [first, second] = aStart <= bStart ? [a, b] : [b, a];
          const gapMs = this.#rel(second.startedAt) - this.#rel(first.settledAt);
          if (gapMs >= 0) {
            this.#say(
              `  => ${second.id} shares ${shared.map(shortName).join(", ")} with ${first.id}: queued, it started at +${this.#rel(second.startedAt)} ms, after ${first.id} ended at +${this.#rel(first.settledAt)} ms`,
            );
            this.#findings.queued ??= { first: first.id, second: second.id, joints: shared, gapMs };
          } else {
            this.#say(
              `  => ${a.id} and ${b.id} share ${shared.map(shortName).join(", ")} but overlapped (${-gapMs} ms): this should never happen`,
            );
          }
        }
      }
    }
    for (const c of calls) {
      if (c.timedOutAt === undefined || !c.result) continue;
      const observedAt = this.#rel(c.settledAt);
      const afterMs = observedAt - this.#rel(c.timedOutAt);
      if (c.result.status === "done" && c.result.settled_by === "observation") {
        this.#say(
          `  => ${c.id}: wait timed out after ${c.budgetMs ?? "?"} ms — the motion went on — observed reached at +${observedAt} ms (${afterMs} ms after the timeout) -> done, nothing re-sent`,
        );
        this.#findings.timeoutObserved ??= {
          call: c.id,
          budgetMs: c.budgetMs ?? 0,
          observedAfterMs: afterMs,
          actionId: c.actionId ?? "",
        };
      } else {
        this.#say(
          `  => ${c.id}: wait timed out after ${c.budgetMs ?? "?"} ms; observation settled it ${c.result.status} at +${observedAt} ms`,
        );
      }
    }
    for (const c of calls) {
      if (c.result?.status !== "unknown" || c.result.action_id === undefined) continue;
      this.#say(
        `  => ${c.id}: ${c.result.action_id} is UNKNOWN — the bridge cannot tell whether it had its effect, so it neither reports success nor retries`,
      );
      this.#findings.unknown ??= { call: c.id, actionId: c.result.action_id, resources: c.result.resources };
    }
    this.#say("");
  }

  #rel(t: number | undefined): number {
    return Math.round((t ?? this.#t0) - this.#t0);
  }

  #stamp(t = this.#now()): string {
    return `+${String(this.#rel(t)).padStart(6)} ms`;
  }

  #line(t: number, c: CallTrack, text: string): void {
    this.#say(`  ${this.#stamp(t)}  ${c.id.padEnd(4)} ${c.tool.padEnd(18)} ${text}`);
  }

  #say(line: string): void {
    this.#write(line);
  }
}

function settledWords(r: CallResult): string {
  const id = "action_id" in r && r.action_id ? `${r.action_id} ` : "";
  switch (r.status) {
    case "done":
      return id
        ? `${id}done (settled by ${r.settled_by}${r.timed_out ? ", after a timeout" : ""})`
        : `done: ${r.message}`;
    case "failed":
      return `${id}failed: ${r.reason} (nothing moved; a re-run is allowed)`;
    case "stopped":
      return `${id}stopped part-way: ${r.reason}`;
    case "unknown":
      return `${id}UNKNOWN: ${r.message}`;
    case "rejected":
      return `rejected (${r.error_code}): ${r.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
    case "skipped":
      return `skipped (${r.error_code}): no time left; nothing was sent`;
    case "blocked":
      return `blocked (${r.error_code}): ${r.resources.map(shortName).join(", ")} await${r.resources.length === 1 ? "s" : ""} confirmation of ${r.blocked_by.join(", ")}; nothing was sent`;
  }
}

function compactArgs(args: Readonly<Record<string, unknown>> | undefined): string {
  const text = JSON.stringify(args ?? {});
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

/** Resources are namespaced (`joint:elbow`); people read the joint's name. */
function shortName(resource: string): string {
  return resource.startsWith("joint:") ? resource.slice("joint:".length) : resource;
}
