/*
 * The operator console, for a person standing at the arm: what waits for
 * them (approvals, unknown outcomes) first, then a picture of the arm, then
 * the history. Bundled by console/build.mjs; dom.ts is the only way data reaches the page.
 */
import { consoleClient, describeError } from "./api.js";
import { ApiError } from "../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { ArmViews } from "./ArmViews.js";
import { DecisionCards } from "./DecisionCards.js";
import { AxisGauge } from "./AxisGauge.js";
import { $, el, setText } from "./dom.js";
import { HaltBar } from "./HaltBar.js";
import { CameraPanel } from "./CameraPanel.js";
import { movingNowText } from "./format.js";
import { runEventStream, type StreamStatus } from "./eventStream.js";
import { showFaults } from "./faultAdvice.js";
import { HistoryPanel } from "./HistoryPanel.js";
import { armPill, decisionsPill, linkPill, setPill, streamPill, valuesStale, type Liveness } from "./liveness.js";
import type { CardContext, LiveView } from "./OutcomeCard.js";
import { PresencePanel } from "./PresencePanel.js";
import { ServoHealthPanel } from "./ServoHealthPanel.js";
import type { ArmDescription, Pose, StateView } from "./wire.js";
import type { CheckedEvent } from "../src/wire/routes.js";

const TOKEN_KEY = "armbridge.token";
const NAME_KEY = "armbridge.operator";
const NOTHING_WAITING = "Nothing is waiting for you: every motion has a known outcome and none asks for approval.";
const REFUSED = "The token was refused. Open the console link that armbridge serve printed (it ends in #token=...).";

function fatal(message: string): void {
  const f = $("fatal");
  f.textContent = message;
  f.hidden = false;
}

function readToken(): string | null {
  const m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m?.[1]) {
    let token = m[1];
    try {
      token = decodeURIComponent(token);
    } catch {
      // A stray % in a hand-typed link: use it as typed; a wrong token is then refused plainly.
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    // The token leaves the address bar (screenshots, shoulders) once read.
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** A motion in flight, drawn on the arm's gauges: where it started and where it goes. */
interface ActiveMotion {
  readonly targets: Pose;
  readonly from: Pose;
}

class OperatorConsole {
  readonly #api: ArmbridgeClient;
  readonly #history: HistoryPanel;
  readonly #haltBar: HaltBar;
  readonly #cameras: CameraPanel;
  readonly #presence: PresencePanel;
  readonly #arm3d: ArmViews;
  readonly #servoHealth = new ServoHealthPanel($("gauges"));
  readonly #operator = $("operator") as HTMLInputElement;
  readonly #decisions: DecisionCards;
  readonly #gauges = new Map<string, AxisGauge>();
  readonly #active = new Map<string, ActiveMotion>();
  #arm: ArmDescription | undefined;
  #state: StateView | undefined;
  #sampleAt: number | undefined;
  #stream: StreamStatus = { state: "connecting", since: Date.now() };

  constructor(api: ArmbridgeClient) {
    this.#api = api;
    this.#history = new HistoryPanel(api);
    this.#decisions = new DecisionCards(
      api,
      () => this.#ctx,
      () => this.#render(),
    );
    this.#operator.value = localStorage.getItem(NAME_KEY) ?? "";
    this.#operator.addEventListener("input", () => {
      localStorage.setItem(NAME_KEY, this.#operator.value.trim());
      this.#syncButtons();
      void this.#presence.beat();
    });
    this.#presence = new PresencePanel(
      api,
      () => this.#operator.value.trim(),
      () => this.#render(),
    );
    this.#cameras = new CameraPanel(api);
    this.#arm3d = new ArmViews(api, $("arm3d"));
    this.#haltBar = new HaltBar(
      api,
      () => this.#operator.value.trim(),
      () => {
        void this.#refreshState();
        this.#history.refresh(0);
      },
    );
  }

  /** What a card needs of the page; undefined until the arm's description (its limits, for the gauges) is known. */
  get #ctx(): CardContext | undefined {
    if (!this.#arm) return undefined;
    return {
      api: this.#api,
      operator: () => this.#operator.value.trim(),
      axes: this.#arm.axes,
      done: (message) => {
        this.#banner("ok", message);
        this.#history.refresh(0);
        void this.#refreshState();
        this.#decisions.refreshApprovals(0);
      },
      showRow: (id) => this.#history.show(id),
      armGhost: (targets, look) => this.#arm3d.ghost(targets, look),
    };
  }

  start(signal: AbortSignal): void {
    setInterval(() => this.#render(), 250);
    this.#render();
    void runEventStream(
      this.#api,
      {
        onStatus: (s) => {
          this.#stream = s;
          if (s.state === "live") {
            if (!this.#arm) void this.#loadArm();
            this.#cameras.load().catch(() => undefined);
            this.#presence.load().catch(() => undefined);
            void this.#loadSecurity();
            this.#history.refresh(0);
            this.#decisions.refreshApprovals(0);
          }
          if (s.state === "refused") fatal(REFUSED);
          this.#render();
        },
        onEvent: (event) => this.#onEvent(event),
        onBadEvent: (error) => this.#banner("bad", describeError(error)),
      },
      signal,
    );
  }

  /** GET /v1/security's warnings (a wide bind, a short token): shown once, they do not change while serve runs. */
  async #loadSecurity(): Promise<void> {
    const box = $("security-warnings");
    try {
      const report = await this.#api.call("security");
      box.replaceChildren(
        ...report.warnings.map((w) =>
          el("p", { text: `SECURITY WARNING: ${w.message}`, attrs: { "data-kind": w.kind } }),
        ),
      );
      box.hidden = report.warnings.length === 0;
    } catch (error) {
      // An older bridge has no such route; anything else is worth saying.
      if (!(error instanceof ApiError && error.status === 404)) {
        box.replaceChildren(el("p", { text: `could not read the bridge's security report: ${describeError(error)}` }));
        box.hidden = false;
      }
    }
  }

  async #loadArm(): Promise<void> {
    try {
      const arm = await this.#api.call("arm");
      this.#arm = arm;
      setText($("arm-name"), arm.name);
      this.#arm3d.setArm(arm);
      const box = $("gauges");
      box.replaceChildren();
      this.#gauges.clear();
      for (const axis of arm.axes) {
        const g = new AxisGauge(axis);
        this.#gauges.set(axis.name, g);
        box.appendChild(g.root);
      }
      // Cards made before the limits were known have no gauges: make them again.
      this.#decisions.clear();
      if (this.#state) this.#onState(this.#state, this.#sampleAt);
      this.#decisions.renderApprovals();
    } catch (error) {
      setText($("age"), `could not read the arm's description: ${describeError(error)}`);
    }
  }

  #onEvent(event: CheckedEvent): void {
    if (event.event === "state") {
      const s = event.data;
      this.#onState(s, s.age_ms === null ? undefined : Date.now() - s.age_ms);
      return;
    }
    const e = event.data;
    switch (e.type) {
      case "started":
        if (e.actionId) void this.#trackMotion(e.actionId);
        break;
      case "settled":
        if (e.result?.action_id) this.#active.delete(e.result.action_id);
        this.#presence.onSettled(e);
        this.#history.noteSettled(e);
        break;
      case "action_resolved":
        if (e.action) this.#active.delete(e.action.action_id);
        break;
      case "approval_requested":
      case "approval_resolved":
        this.#decisions.refreshApprovals(0);
        break;
      case "halt_released":
        this.#haltBar.released(e.halts);
        void this.#refreshState();
        break;
      case "halted":
      case "link_returned":
        // The link pill reads the state that follows; the unknown actions looked at again settle as action_resolved.
        void this.#refreshState();
        break;
      case "queued":
      case "timed_out":
      case "paced":
        break;
    }
    this.#history.refresh();
  }

  async #trackMotion(actionId: string): Promise<void> {
    try {
      const a = await this.#api.call("action", { params: { id: actionId } });
      if (a.state === "started")
        this.#active.set(actionId, { targets: a.command?.targets ?? {}, from: a.command?.from ?? {} });
    } catch {
      // The gauges still show the live pose; only the before/target marks are missing.
    }
  }

  async #refreshState(): Promise<void> {
    try {
      const s = await this.#api.call("state");
      this.#onState(s, s.age_ms === null ? undefined : Date.now() - s.age_ms);
    } catch {
      // The stream's next state event brings it.
    }
  }

  #onState(s: StateView, sampleAt: number | undefined): void {
    const pendingBefore = this.#approvalCount(this.#state);
    this.#state = s;
    this.#sampleAt = sampleAt;
    this.#haltBar.update(s);
    this.#presence.update(s);
    if (this.#approvalCount(s) !== pendingBefore) this.#decisions.refreshApprovals(0);
    if (!this.#arm) return this.#render();
    this.#decisions.showUnknowns(s.pending_unknowns);
    const lost = s.ledger?.lost;
    const lostBox = $("ledger-lost");
    lostBox.hidden = !lost;
    if (lost)
      setText(
        lostBox,
        `THE LEDGER IS LOST (${lost.code}): ${lost.message} Motion calls fail until the bridge is restarted.`,
      );
    this.#render();
  }

  #approvalCount(s: StateView | undefined): number {
    return s?.approvals_pending ?? 0;
  }

  #syncButtons(): void {
    this.#decisions.sync();
    const waiting = this.#decisions.unknownCount + this.#decisions.approvalCount > 0;
    this.#operator.classList.toggle(
      "missing",
      (waiting || this.#presence.required) && this.#operator.value.trim() === "",
    );
  }

  #liveness(now: number): Liveness {
    return {
      stream: this.#stream,
      state: this.#state,
      sampleAt: this.#sampleAt,
      staleAfterMs: this.#arm?.stale_after_ms ?? 500,
      now,
    };
  }

  #render(): void {
    const now = Date.now();
    const l = this.#liveness(now);
    setPill("stream", streamPill(this.#stream));
    setPill("link", linkPill(l));
    setPill("arm", armPill(l));
    const unknowns = this.#decisions.unknownCount;
    const approvals = this.#decisions.approvalCount;
    const waiting = unknowns + approvals;
    // "Nothing waiting" is a claim about now: only the live stream can make it.
    const live = this.#stream.state === "live" && this.#state !== undefined;
    const halted = live && this.#state?.halted === true;
    setPill("need", decisionsPill({ unknowns, approvals, known: live, halted }));
    $("nothing").hidden = waiting > 0 || !live;
    // The halt's bar says it; this line only says that nothing else waits.
    setText($("nothing"), halted ? "Nothing else is waiting for you." : NOTHING_WAITING);
    // When nothing waits, the arm takes the room (console.css main.idle).
    $("main").classList.toggle("idle", waiting === 0);
    // Hold-to-run needs a name whether or not anything waits: the field stays.
    $("who").hidden = waiting === 0 && !this.#presence.required;
    $("decisions").classList.toggle("has", waiting > 0);
    showFaults($("faults"), l.state);
    this.#syncButtons();
    setText($("moving-now"), movingNowText(live ? (this.#state?.in_flight ?? []) : undefined));

    const s = this.#state;
    const stale = valuesStale(l);
    const view: LiveView = {
      pose: s?.pose ?? {},
      poseAt: this.#sampleAt,
      stale,
      moving: stale ? [] : (s?.moving ?? []),
    };
    const ageText =
      !s || this.#sampleAt === undefined
        ? "no status yet"
        : stale
          ? "STALE: these are the last values seen, not the arm now"
          : "live";
    setText($("age"), ageText);
    $("arm-panel").classList.toggle("stale", stale);
    this.#arm3d.update(s, stale);
    for (const [name, g] of this.#gauges)
      g.update(
        {
          live: view.pose[name],
          liveAt: view.poseAt,
          stale,
          moving: view.moving.includes(name),
          ...this.#marksFor(name),
        },
        now,
      );
    this.#servoHealth.update(s?.servo_health, stale, (axis) => this.#gauges.get(axis)?.root);
    this.#decisions.update(view, now);
  }

  /** Before/target of whatever concerns this axis now: a motion in flight, else an approval request, else an unknown. */
  #marksFor(axis: string): {
    before?: number | undefined;
    target?: number | undefined;
    requested?: number | undefined;
  } {
    for (const m of this.#active.values())
      if (axis in m.targets) return { before: m.from[axis], target: m.targets[axis] };
    for (const a of this.#decisions.approvals)
      if (axis in a.targets) return { before: this.#state?.pose[axis], requested: a.targets[axis] };
    for (const a of this.#state?.pending_unknowns ?? []) {
      const t = a.command?.targets;
      if (t && axis in t) return { before: a.command?.from?.[axis], target: t[axis] };
    }
    return {};
  }

  #banner(tone: "ok" | "bad", message: string): void {
    const b = $("banner");
    b.className = `banner ${tone}`;
    b.hidden = false;
    setText(b, message);
  }
}

const token = readToken();
if (!token) fatal("No token. Open the console link that armbridge serve printed: it ends in #token=...");
else new OperatorConsole(consoleClient(token, () => fatal(REFUSED))).start(new AbortController().signal);
