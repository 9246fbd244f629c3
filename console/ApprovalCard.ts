import { describeError } from "./api.js";
import { compactGauges, type AxisGauge } from "./AxisGauge.js";
import { mountCardFrames } from "./CardFrames.js";
import { el, setText } from "./dom.js";
import { clientLabel, clockTime, elapsed, json } from "./format.js";
import type { CardContext, LiveView } from "./OutcomeCard.js";
import type { ApprovalView } from "./wire.js";

type Answer = "approve" | "decline";

const ANSWER_TEXT: Readonly<Record<Answer, { readonly label: string; readonly line: string }>> = {
  approve: {
    label: "Approve \u2014 run it now",
    line: "The motion is sent once, as requested; the model gets its result as usual.",
  },
  decline: {
    label: "Decline \u2014 send nothing",
    line: "Nothing moves. The model is told the call was rejected by the operator, with your note.",
  },
};

/**
 * A call that waits, holding its joints, for an operator's yes or no. The
 * requested target is drawn on the gauges against the live pose; past
 * expires_at the bridge declines it itself (the card says so).
 */
export class ApprovalCard {
  readonly root: HTMLElement;
  readonly #ctx: CardContext;
  readonly #approval: ApprovalView;
  readonly #gauges: readonly AxisGauge[];
  readonly #buttons: HTMLButtonElement[] = [];
  readonly #note: HTMLTextAreaElement;
  readonly #error: HTMLElement;
  readonly #hint: HTMLElement;
  readonly #expiry: HTMLElement;
  #busy = false;

  constructor(approval: ApprovalView, ctx: CardContext) {
    this.#approval = approval;
    this.#ctx = ctx;
    const axes = Object.keys(approval.targets ?? {});
    const { box: gaugeBox, gauges } = compactGauges(axes, ctx.axes);
    this.#gauges = gauges;
    const noteId = `approval-note-${approval.id}`;
    this.#note = el("textarea", { attrs: { id: noteId, rows: "1", maxlength: "2000", "data-role": "note" } });
    this.#expiry = el("span", { cls: "expiry" });
    this.#hint = el("p", { cls: "hint", text: "Type your name above to answer." });
    this.#error = el("p", { cls: "err", attrs: { role: "alert" } });
    const row = el("div", { cls: "outcomes two" });
    for (const answer of ["approve", "decline"] as const) {
      const t = ANSWER_TEXT[answer];
      const b = el("button", { cls: `outcome a-${answer}`, attrs: { type: "button", "data-answer": answer } }, [
        el("span", { cls: "o-label", text: t.label }),
        el("span", { cls: "o-line", text: t.line }),
      ]);
      b.addEventListener("click", () => void this.#answer(answer));
      this.#buttons.push(b);
      row.appendChild(b);
    }
    this.root = el("article", { cls: "card approval", attrs: { "data-approval-id": approval.id } }, [
      el("h3", { text: `Approve this ${approval.tool}?` }),
      el("p", {
        cls: "lead",
        text: `It will move ${axes.length ? axes.join(", ") : (approval.resources ?? []).join(", ")}. Nothing has been sent yet; those joints wait for you.`,
      }),
      el("p", { cls: "meta" }, [
        document.createTextNode(
          `request ${approval.id} \u00b7 call ${approval.call_id} \u00b7 asked by ${clientLabel(approval.client)} at ${clockTime(approval.requested_at)} \u00b7 `,
        ),
        this.#expiry,
      ]),
      ...(approval.why ? [el("p", { cls: "meta", text: `asked because: ${approval.why}` })] : []),
      el("div", { cls: "args", text: `${approval.tool} ${json(approval.args)}` }),
      gaugeBox,
      el("div", { cls: "note-row" }, [
        el("label", { cls: "note-label", text: "Your note (optional): why", attrs: { for: noteId } }),
        this.#note,
      ]),
      row,
      this.#hint,
      this.#error,
      ctx.armGhost(approval.targets, "requested"),
    ]);
    mountCardFrames(this.root, ctx.api, { kind: "approval", id: approval.id });
    this.sync();
  }

  sync(): void {
    const named = this.#ctx.operator().length > 0;
    for (const b of this.#buttons) b.disabled = !named || this.#busy;
    this.#hint.hidden = named;
  }

  update(live: LiveView, now = Date.now()): void {
    const left = this.#approval.expires_at - now;
    setText(
      this.#expiry,
      left > 0 ? `declined by itself in ${elapsed(left)} if nobody answers` : "expired: the bridge declines it",
    );
    for (const g of this.#gauges) {
      const n = g.axis.name;
      g.update(
        {
          live: live.pose[n],
          liveAt: live.poseAt,
          stale: live.stale,
          moving: live.moving.includes(n),
          before: live.pose[n],
          requested: this.#approval.targets[n],
        },
        now,
      );
    }
  }

  async #answer(answer: Answer): Promise<void> {
    const operator = this.#ctx.operator();
    if (!operator) return;
    this.#busy = true;
    setText(this.#error, "");
    this.sync();
    const note = this.#note.value.trim();
    try {
      const body = { operator, ...(note ? { note } : {}) };
      await this.#ctx.api.call(answer === "approve" ? "approve" : "decline", {
        params: { id: this.#approval.id },
        body,
      });
      this.#ctx.done(
        `${clockTime(Date.now())} \u2014 ${answer === "approve" ? "approved" : "declined"}: ${this.#approval.tool} (call ${this.#approval.call_id}) by ${operator}.`,
      );
      this.root.remove();
    } catch (error) {
      this.#busy = false;
      this.sync();
      setText(this.#error, describeError(error));
    }
  }
}
