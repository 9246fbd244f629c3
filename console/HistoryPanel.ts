import { describeError } from "./api.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { $, el, setText } from "./dom.js";
import { clientLabel, clockTime } from "./format.js";
import { stateLabel } from "./stateWords.js";
import {
  ACTION_STATES,
  type ActionRowState,
  type ActionView,
  type ClientsList,
  type ClientView,
  type ExecutorEventView,
} from "./wire.js";

const STATE_LABEL: Readonly<Record<ActionRowState, string>> = Object.fromEntries(
  ACTION_STATES.map((s) => [s, stateLabel(s)]),
) as Record<ActionRowState, string>;

/** Who or what settled a row, and when: "settled by ana at 12:03:04 (partial)", "settled by completion at 12:01:00". */
export function settledText(a: ActionView): string {
  if (a.state === "started") return "still running";
  const at = a.confirmed_at ?? a.settled_at;
  const when = at ? ` at ${clockTime(at)}` : "";
  if (a.state === "unknown") return `waiting for an operator (unknown since ${at ? clockTime(at) : "its start"})`;
  if (a.operator)
    return `settled by ${a.operator}${when}${a.operator_outcome ? ` (${a.operator_outcome.replace(/_/g, " ")})` : ""}`;
  return `settled by ${a.settled_by === "none" ? "nobody" : a.settled_by}${when}`;
}

/** Who approved a gated motion, when, and what they said: "approved by ana at 12:01:00: clear of the fixture". */
export function approvedText(approval: NonNullable<ActionView["approval"]>): string {
  return `approved by ${approval.operator} at ${clockTime(approval.at)}${approval.note ? `: ${approval.note}` : ""}`;
}

const LIMIT = 30;

/** A call the bridge refused before anything was sent: it has no ledger row, so History keeps what the events said. */
interface Refusal {
  readonly at: number;
  readonly callId: string;
  readonly tool: string;
  readonly client: ClientView | null;
  readonly status: "rejected" | "blocked";
  readonly code: string | undefined;
  readonly message: string;
}

/** Refusals kept for History: a model retrying into a refusal must not push every action out of view. */
const MAX_REFUSALS = 20;

/**
 * Recent actions, newest first: who asked for them, final state, who
 * settled them and when, filterable by state and by client. Each row has the id `row-<action_id>` so an unknown's
 * card links to it.
 */
export class HistoryPanel {
  readonly #api: ArmbridgeClient;
  readonly #list: HTMLElement;
  readonly #filter: HTMLSelectElement;
  readonly #clientFilter: HTMLSelectElement;
  /** The clients the select offers, by its option value. */
  #clients = new Map<string, ClientView>();
  readonly #status: HTMLElement;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #wantRow: string | undefined;
  /**
   * Calls refused unsent while this console was open, newest first. A refusal
   * beside an unknown motion is how an operator learns that the model is
   * being held back by an answer only they can give.
   */
  #refusals: Refusal[] = [];

  constructor(api: ArmbridgeClient) {
    this.#api = api;
    this.#list = $("history");
    this.#status = $("history-status");
    this.#filter = $("history-filter") as HTMLSelectElement;
    this.#filter.appendChild(el("option", { text: "every state", attrs: { value: "" } }));
    for (const s of ACTION_STATES)
      this.#filter.appendChild(el("option", { text: STATE_LABEL[s].toLowerCase(), attrs: { value: s } }));
    this.#filter.addEventListener("change", () => this.refresh(0));
    this.#clientFilter = $("history-client") as HTMLSelectElement;
    this.#clientFilter.appendChild(el("option", { text: "every client", attrs: { value: "" } }));
    this.#clientFilter.addEventListener("change", () => this.refresh(0));
  }

  /** Re-reads the ledger soon; bursts of events collapse into one request. */
  refresh(delayMs = 150): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#load();
    }, delayMs);
  }

  /** Keeps a call the bridge refused (nothing sent) for History; other settlements are in the ledger. */
  noteSettled(e: Extract<ExecutorEventView, { type: "settled" }>): void {
    const status = e.result.status;
    if ((status !== "rejected" && status !== "blocked") || e.result.action_id !== undefined) return;
    this.#refusals = [
      {
        at: Date.now(),
        callId: e.callId,
        tool: e.tool,
        client: e.client,
        status,
        code: e.result.error_code,
        message: e.result.message,
      },
      ...this.#refusals,
    ].slice(0, MAX_REFUSALS);
  }

  /** Scrolls to an action's row, widening the filter if it hides the row. */
  show(actionId: string): void {
    this.#wantRow = actionId;
    const row = document.getElementById(`row-${actionId}`);
    if (row) return this.#reveal(row);
    this.#filter.value = "";
    this.#clientFilter.value = "";
    this.refresh(0);
  }

  #reveal(row: HTMLElement): void {
    this.#wantRow = undefined;
    for (const r of this.#list.querySelectorAll(".hrow.wanted")) r.classList.remove("wanted");
    row.classList.add("wanted");
    row.scrollIntoView({ block: "center" });
    row.focus({ preventScroll: true });
  }

  async #load(): Promise<void> {
    const state = this.#filter.value;
    const client = this.#clients.get(this.#clientFilter.value);
    try {
      const q = new URLSearchParams({ limit: String(LIMIT) });
      if (state) q.set("state", state);
      if (client) {
        q.set("client_kind", client.kind);
        q.set("client_name", client.name);
        if (client.session) q.set("client_session", client.session);
      }
      const [page, clients] = await Promise.all([
        this.#api.call("actions", { query: Object.fromEntries(q) }),
        this.#api.call("clients"),
      ]);
      this.#offerClients(clients);
      // Refusals have no state or client in the ledger: they stand among the rows only when nothing is filtered.
      const refusals = state || client ? [] : this.#refusals.map((r) => ({ at: r.at, row: this.#refusalRow(r) }));
      const rows = [...page.actions.map((a) => ({ at: a.created_at, row: this.#row(a) })), ...refusals].sort(
        (x, y) => y.at - x.at,
      );
      this.#list.replaceChildren(...rows.map((r) => r.row));
      const of = client ? ` from ${clientLabel(client)}` : "";
      setText(
        this.#status,
        page.actions.length
          ? `newest ${page.actions.length}${state ? ` ${STATE_LABEL[state as ActionRowState].toLowerCase()}` : ""}${of}`
          : client
            ? `no actions${of}`
            : "no actions yet",
      );
      const want = this.#wantRow && document.getElementById(`row-${this.#wantRow}`);
      if (want) this.#reveal(want);
    } catch (error) {
      setText(this.#status, `could not read the ledger: ${describeError(error)}`);
    }
  }

  /** Keeps the client select in step with the ledger's clients, the chosen one kept even when it has aged out. */
  #offerClients(list: ClientsList): void {
    const chosen = this.#clientFilter.value;
    const next = new Map<string, ClientView>();
    for (const c of list.clients)
      next.set(JSON.stringify([c.client.kind, c.client.name, c.client.session ?? ""]), c.client);
    const kept = this.#clients.get(chosen);
    if (chosen && kept && !next.has(chosen)) next.set(chosen, kept);
    this.#clients = next;
    const options = [
      el("option", { text: "every client", attrs: { value: "" } }),
      ...[...next].map(([value, c]) => el("option", { text: clientLabel(c), attrs: { value } })),
    ];
    this.#clientFilter.replaceChildren(...options);
    this.#clientFilter.value = next.has(chosen) ? chosen : "";
  }

  #refusalRow(r: Refusal): HTMLElement {
    return el("li", { cls: "hrow s-refused", attrs: { "data-state": "refused", "data-call-id": r.callId } }, [
      el("span", { cls: "h-time", text: clockTime(r.at) }),
      el("span", { cls: "h-tool", text: r.tool }),
      el("span", {
        cls: "h-client",
        text: `asked by ${r.client ? clientLabel(r.client) : "a caller that gave no name"}`,
      }),
      el("span", { cls: "badge s-refused", text: r.status === "blocked" ? "Refused: blocked" : "Refused" }),
      el("span", { cls: "h-who", text: `nothing was sent${r.code ? ` (${r.code})` : ""}` }),
      el("span", { cls: "h-id", text: `call ${r.callId}` }),
      el("details", { cls: "h-msg" }, [
        el("summary", { text: "what the model is told" }),
        el("p", { text: r.message }),
      ]),
    ]);
  }

  #row(a: ActionView): HTMLElement {
    const what = a.description ?? "";
    const message = a.message ?? "";
    return el(
      "li",
      { cls: `hrow s-${a.state}`, attrs: { id: `row-${a.action_id}`, tabindex: "-1", "data-state": a.state } },
      [
        el("span", { cls: "h-time", text: clockTime(a.created_at) }),
        el("span", { cls: "h-tool", text: a.tool }),
        el("span", { cls: "h-client", text: `asked by ${clientLabel(a.client)}` }),
        el("span", { cls: `badge s-${a.state}`, text: STATE_LABEL[a.state] ?? a.state }),
        ...(a.approval ? [el("span", { cls: "h-approved", text: approvedText(a.approval) })] : []),
        el("span", { cls: "h-who", text: settledText(a) }),
        el("span", { cls: "h-id", text: `${a.action_id} \u00b7 call ${a.call_id}` }),
        ...(what ? [el("span", { cls: "h-what", text: what })] : []),
        ...(a.operator_note ? [el("span", { cls: "h-note", text: `note: ${a.operator_note}` })] : []),
        ...(message
          ? [
              el("details", { cls: "h-msg" }, [
                el("summary", { text: "what the model is told" }),
                el("p", { text: message }),
              ]),
            ]
          : []),
      ],
    );
  }
}
