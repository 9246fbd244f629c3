import { describeError } from "./api.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { compactGauges, type AxisGauge } from "./AxisGauge.js";
import { mountCardFrames } from "./CardFrames.js";
import { el, setText } from "./dom.js";
import { clientLabel, clockTime, json } from "./format.js";
import { fallbackOptions, isOutcome, releasesText, WHERE_THE_ARM_IS, type ShownOption } from "./outcomeOptions.js";
import { axisReport, reachedQuestion, reportsReached, type AxisReport } from "./poseAgainstTarget.js";
import type { ActionView, ArmAxis, Pose } from "./wire.js";

export interface CardContext {
  readonly api: ArmbridgeClient;
  readonly operator: () => string;
  readonly axes: readonly ArmAxis[];
  /** After a decision was recorded: a line for the banner. */
  readonly done: (message: string) => void;
  readonly showRow: (actionId: string) => void;
  /** The arm in 3D now, with `targets` as a ghost (ArmViews.ghost). */
  readonly armGhost: (targets: Pose, look: "target" | "requested") => HTMLElement;
}

export interface LiveView {
  readonly pose: Pose;
  readonly poseAt: number | undefined;
  readonly stale: boolean;
  readonly moving: readonly string[];
}

/** Whose action, when it started, and a link to its row in the history. */
function actionMeta(action: ActionView, ctx: CardContext): HTMLElement {
  const id = action.action_id;
  const rowLink = el("a", { text: "its row in History", attrs: { href: `#row-${id}` } });
  rowLink.addEventListener("click", (e) => {
    e.preventDefault();
    ctx.showRow(id);
  });
  return el("p", { cls: "meta" }, [
    document.createTextNode(
      `action ${id} \u00b7 call ${action.call_id} \u00b7 asked by ${clientLabel(action.client)} \u00b7 started ${clockTime(action.created_at)}${action.timed_out ? " \u00b7 our wait timed out" : ""} \u00b7 `,
    ),
    rowLink,
  ]);
}

/** What the bridge saw of the motion, folded: its description and notes. */
function evidenceDetails(action: ActionView): HTMLElement {
  const notes = action.evidence?.notes ?? [];
  return el("details", { cls: "evidence" }, [
    el("summary", { text: "What the bridge saw" }),
    el("p", { text: action.description ?? action.message ?? "No conclusive evidence." }),
    ...(notes.length
      ? [
          el(
            "ul",
            {},
            notes.map((n) => el("li", { text: n })),
          ),
        ]
      : []),
  ]);
}

/** The deliberate second step before "reached" is recorded, hidden until asked for; Back hides it again. */
function secondStep(text: HTMLElement, yes: HTMLButtonElement): HTMLElement {
  const back = el("button", {
    cls: "second-no",
    text: "Back",
    attrs: { type: "button", "data-role": "cancel-reached" },
  });
  const box = el(
    "div",
    { cls: "second-step", attrs: { role: "alertdialog", "aria-label": "Confirm reached", hidden: "" } },
    [text, el("div", { cls: "second-buttons" }, [yes, back])],
  );
  back.addEventListener("click", () => (box.hidden = true));
  return box;
}

/**
 * An `unknown` motion waiting for the operator. It asks what can be seen at
 * the arm — reached, part-way, not moved — and each button says what follows.
 * The three answers look alike: the card does not suggest one. What the arm
 * reports is written against the target, and where that report does not put
 * the arm at the target, "reached" takes a second, deliberate step.
 * Kept across updates (not rebuilt), so a note being typed survives.
 */
export class OutcomeCard {
  readonly root: HTMLElement;
  readonly #ctx: CardContext;
  readonly #action: ActionView;
  readonly #gauges: readonly AxisGauge[];
  readonly #buttons: HTMLButtonElement[] = [];
  readonly #options: ShownOption[] = [];
  readonly #told: HTMLElement[] = [];
  readonly #buttonRow: HTMLElement;
  readonly #note: HTMLTextAreaElement;
  readonly #error: HTMLElement;
  readonly #hint: HTMLElement;
  readonly #reported: HTMLElement;
  readonly #second: HTMLElement;
  readonly #secondText: HTMLElement;
  readonly #secondYes: HTMLButtonElement;
  #reports: readonly AxisReport[] = [];
  #busy = false;

  constructor(action: ActionView, ctx: CardContext) {
    this.#action = action;
    this.#ctx = ctx;
    const id = action.action_id;
    const targets = action.command?.targets ?? {};
    const moved = Object.keys(targets);
    const { box: gaugeBox, gauges } = compactGauges(moved, ctx.axes);
    this.#gauges = gauges;
    const noteId = `note-${id}`;
    this.#note = el("textarea", { attrs: { id: noteId, rows: "1", maxlength: "2000", "data-role": "note" } });
    this.#buttonRow = el("div", { cls: "outcomes" });
    this.#hint = el("p", { cls: "hint", text: "Type your name above to answer." });
    this.#error = el("p", { cls: "err", attrs: { role: "alert" } });
    this.#reported = el("div", { cls: "reported", attrs: { "data-role": "reported", role: "status" } });
    this.#secondText = el("p", { cls: "second-text" });
    this.#secondYes = el("button", {
      cls: "second-yes",
      text: "Yes, I see it at the target \u2014 record \u201creached\u201d",
      attrs: { type: "button", "data-role": "confirm-reached" },
    });
    this.#second = secondStep(this.#secondText, this.#secondYes);
    this.#secondYes.addEventListener("click", () => {
      const reached = this.#options.find((o) => o.outcome === "reached");
      if (reached) void this.#answer(reached);
    });
    this.root = el("article", { cls: "card unknown", attrs: { "data-action-id": id, id: `card-${id}` } }, [
      el("h3", { text: `Did this ${action.tool} happen? Look at the arm.` }),
      el("p", {
        cls: "lead",
        text: `The bridge could not tell whether ${moved.length ? moved.join(", ") : "the arm"} reached the target; ${releasesText(action.resources)} accept no motion until you answer.`,
      }),
      actionMeta(action, ctx),
      el("div", { cls: "args", text: `${action.tool} ${json(action.args)}` }),
      gaugeBox,
      this.#reported,
      evidenceDetails(action),
      el("div", { cls: "note-row" }, [
        el("label", { cls: "note-label", text: "Your note (optional): what you saw", attrs: { for: noteId } }),
        this.#note,
      ]),
      this.#buttonRow,
      this.#second,
      this.#hint,
      this.#error,
      ctx.armGhost(targets, "target"),
    ]);
    mountCardFrames(this.root, ctx.api, { kind: "action", id });
    this.#setOptions(action.confirm_options ?? null);
  }

  /**
   * The bridge's own description of the choices (pending_unknowns carry it,
   * its words naming the pose seen now). Texts are updated in place: a button
   * replaced under the operator's finger would swallow the click.
   */
  setOptions(options: readonly ShownOption[] | undefined): void {
    if (options?.length) this.#setOptions(options);
  }

  #setOptions(options: readonly ShownOption[] | null): void {
    const list = options?.length ? options : fallbackOptions(this.#action);
    const same =
      list.length === this.#buttons.length &&
      list.every((o, i) => this.#buttons[i]?.getAttribute("data-outcome") === o.outcome);
    if (!same) {
      this.#buttonRow.replaceChildren();
      this.#buttons.length = 0;
      this.#told.length = 0;
      this.#options.length = 0;
      for (const o of list) {
        const b = el("button", { cls: `outcome o-${o.outcome}`, attrs: { type: "button", "data-outcome": o.outcome } });
        const i = this.#buttons.length;
        b.addEventListener("click", () => {
          const chosen = this.#options[i];
          if (chosen) this.#choose(chosen);
        });
        // The model's own words, verbatim, folded under the button: the button
        // already says in the operator's words what the model is told.
        const told = el("p", { cls: "o-told" });
        const details = el("details", { cls: "told" }, [el("summary", { text: "The model's words" }), told]);
        this.#buttons.push(b);
        this.#told.push(told);
        this.#buttonRow.appendChild(el("div", { cls: "option", attrs: { "data-option": o.outcome } }, [b, details]));
      }
    }
    list.forEach((o, i) => {
      this.#options[i] = o;
      const b = this.#buttons[i];
      const told = this.#told[i];
      if (!b || !told) return;
      const follows =
        o.what_follows ??
        `${isOutcome(o.outcome) ? WHERE_THE_ARM_IS[o.outcome] : ""} The model is told: \u201c${o.model_is_told}\u201d`;
      const lines = [o.label, `Releases: ${releasesText(o.releases)}`, follows.trim()];
      const key = lines.join("\n");
      if (b.dataset.text !== key) {
        b.dataset.text = key;
        b.replaceChildren(...lines.map((t, k) => el("span", { cls: k === 0 ? "o-label" : "o-line", text: t })));
      }
      setText(told, o.model_is_told);
    });
    this.sync();
  }

  sync(): void {
    const named = this.#ctx.operator().length > 0;
    for (const b of this.#buttons) b.disabled = !named || this.#busy;
    this.#secondYes.disabled = !named || this.#busy;
    this.#hint.hidden = named;
  }

  /** "Reached" against the arm's own report asks once more; the other answers are recorded at once. */
  #choose(option: ShownOption): void {
    if (option.outcome === "reached" && !reportsReached(this.#reports)) {
      setText(this.#secondText, reachedQuestion(this.#reports));
      this.#second.hidden = false;
      this.#secondYes.focus();
      return;
    }
    this.#second.hidden = true;
    void this.#answer(option);
  }

  update(live: LiveView, now = Date.now()): void {
    const targets = this.#action.command?.targets ?? {};
    const from = this.#action.command?.from ?? {};
    for (const g of this.#gauges) {
      const n = g.axis.name;
      g.update(
        {
          live: live.pose[n],
          liveAt: live.poseAt,
          stale: live.stale,
          moving: live.moving.includes(n),
          before: from[n],
          target: targets[n],
        },
        now,
      );
    }
    const reports: AxisReport[] = [];
    for (const [name, target] of Object.entries(targets)) {
      const axis = this.#ctx.axes.find((a) => a.name === name);
      if (axis) reports.push(axisReport(axis, live.pose[name], target, from[name], live.stale));
    }
    this.#reports = reports;
    const key = reports.map((r) => r.text).join("\n");
    if (this.#reported.dataset.text !== key) {
      this.#reported.dataset.text = key;
      this.#reported.replaceChildren(
        el("span", { cls: "reported-head", text: "The arm reports " }),
        ...reports.map((r) =>
          el("span", {
            cls: `reported-axis ${r.standing.kind === "at" && !r.stale ? "at" : "off"}`,
            text: r.text,
            attrs: { "data-axis": r.axis },
          }),
        ),
      );
    }
    if (!this.#second.hidden && !reportsReached(reports)) setText(this.#secondText, reachedQuestion(reports));
  }

  async #answer(option: ShownOption): Promise<void> {
    const operator = this.#ctx.operator();
    if (!operator) return;
    this.#busy = true;
    setText(this.#error, "");
    this.sync();
    const note = this.#note.value.trim();
    try {
      const body = { outcome: option.outcome, operator, ...(note ? { note } : {}) };
      await this.#ctx.api.call("confirmAction", { params: { id: this.#action.action_id }, body });
      this.#ctx.done(
        `${clockTime(Date.now())} \u2014 recorded for ${this.#action.tool} ${this.#action.action_id}: \u201c${option.label}\u201d (by ${operator}). Released: ${releasesText(option.releases)}.`,
      );
      this.root.remove();
    } catch (error) {
      this.#busy = false;
      this.sync();
      setText(this.#error, describeError(error));
    }
  }
}
