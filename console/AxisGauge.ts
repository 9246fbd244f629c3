import { el, setAttrs, setText, svg } from "./dom.js";
import { ago, degrees, fixed } from "./format.js";
import type { ArmAxis } from "./wire.js";

/** What one gauge shows; every mark is optional (no motion → no before/target). */
export interface GaugeReading {
  readonly live: number | undefined;
  /** When the live value was sampled (epoch ms, browser clock), for "last seen". */
  readonly liveAt: number | undefined;
  readonly stale: boolean;
  readonly moving: boolean;
  readonly before?: number | undefined;
  readonly target?: number | undefined;
  /** A motion that waits for approval: drawn apart from a target that was sent. */
  readonly requested?: number | undefined;
}

const W = 300;
const PAD = 14;
const TRACK_Y = 22;

/**
 * One axis as a horizontal SVG gauge: the track spans the axis's limits, a
 * hollow triangle below it marks the pose before the motion, a diamond above
 * it the target (dashed purple when only requested, awaiting approval), and a
 * filled dot the live position; the span from before to target is shaded
 * while the axis moves. Each mark's value is also written out beside it in
 * text, so nothing depends on reading the picture.
 */
export class AxisGauge {
  readonly root: HTMLElement;
  readonly #axis: ArmAxis;
  readonly #svg: SVGSVGElement;
  readonly #band: SVGRectElement;
  readonly #before: SVGPathElement;
  readonly #target: SVGPathElement;
  readonly #requested: SVGPathElement;
  readonly #live: SVGCircleElement;
  readonly #value: HTMLElement;
  readonly #detail: HTMLElement;
  readonly #badge: HTMLElement;
  readonly #compact: boolean;

  /** `compact`: inside a decision card, where the limits drawn at the track's ends are enough. */
  constructor(axis: ArmAxis, options: { readonly compact?: boolean } = {}) {
    this.#axis = axis;
    this.#compact = options.compact ?? false;
    this.#value = el("span", { cls: "gauge-value" });
    this.#badge = el("span", { cls: "badge moving", text: "MOVING" });
    this.#detail = el("div", { cls: "gauge-detail" });
    const s = svg("svg", { viewBox: `0 0 ${W} 40`, class: "gauge-svg", role: "img" });
    s.appendChild(svg("line", { x1: PAD, x2: W - PAD, y1: TRACK_Y, y2: TRACK_Y, class: "track" }));
    for (const v of [axis.min, axis.max, ...(axis.min < 0 && axis.max > 0 ? [0] : [])]) {
      const x = this.#x(v);
      s.appendChild(svg("line", { x1: x, x2: x, y1: TRACK_Y - 6, y2: TRACK_Y + 6, class: "tick" }));
    }
    this.#band = svg("rect", { y: TRACK_Y - 4, height: 8, class: "band" });
    this.#before = svg("path", { class: "mark-before" });
    this.#target = svg("path", { class: "mark-target" });
    this.#requested = svg("path", { class: "mark-requested" });
    this.#live = svg("circle", { cy: TRACK_Y, r: 6, class: "mark-live" });
    s.append(this.#band, this.#before, this.#target, this.#requested, this.#live);
    const lo = svg("text", { x: PAD, y: 39, class: "limit", "text-anchor": "start" });
    lo.textContent = axis.kind === "gripper" ? "0 closed" : fixed(axis.min, 2);
    const hi = svg("text", { x: W - PAD, y: 39, class: "limit", "text-anchor": "end" });
    hi.textContent = axis.kind === "gripper" ? "open 1" : fixed(axis.max, 2);
    s.append(lo, hi);
    this.#svg = s;
    const head = el("div", { cls: "gauge-head" }, [
      el("span", { cls: "axis-name", text: axis.name }),
      this.#badge,
      this.#value,
    ]);
    this.root = el("div", { cls: "gauge", attrs: { "data-axis": axis.name } }, [head, s, this.#detail]);
  }

  get axis(): ArmAxis {
    return this.#axis;
  }

  #x(v: number): number {
    const span = this.#axis.max - this.#axis.min;
    const f = span > 0 ? (v - this.#axis.min) / span : 0.5;
    return PAD + Math.min(1, Math.max(0, f)) * (W - 2 * PAD);
  }

  #place(mark: SVGPathElement, v: number | undefined, shape: (x: number) => string): void {
    if (v === undefined) {
      mark.setAttribute("visibility", "hidden");
      return;
    }
    setAttrs(mark, { d: shape(this.#x(v)), visibility: "visible" });
  }

  #text(v: number): string {
    return this.#axis.kind === "gripper" ? fixed(v, 3) : `${fixed(v, 3)} rad (${degrees(v)})`;
  }

  update(r: GaugeReading, now = Date.now()): void {
    this.root.classList.toggle("stale", r.stale);
    this.root.classList.toggle("is-moving", r.moving && !r.stale);
    this.#badge.hidden = !(r.moving && !r.stale);
    if (r.live === undefined) setText(this.#value, "no reading yet");
    else if (r.stale)
      setText(
        this.#value,
        `${this.#text(r.live)} \u2014 last seen ${r.liveAt === undefined ? "never" : ago(r.liveAt, now)}`,
      );
    else setText(this.#value, this.#text(r.live));

    const out = r.live !== undefined && (r.live < this.#axis.min || r.live > this.#axis.max);
    this.root.classList.toggle("out-of-range", out);
    if (r.live === undefined) this.#live.setAttribute("visibility", "hidden");
    else setAttrs(this.#live, { cx: this.#x(r.live), visibility: "visible" });
    this.#place(this.#before, r.before, (x) => `M${x},${TRACK_Y + 8} l-6,10 h12 z`);
    this.#place(this.#target, r.target, (x) => `M${x},${TRACK_Y - 20} l6,7 l-6,7 l-6,-7 z`);
    this.#place(this.#requested, r.requested, (x) => `M${x},${TRACK_Y - 20} l6,7 l-6,7 l-6,-7 z`);
    const to = r.target ?? r.requested;
    if (r.before !== undefined && to !== undefined) {
      const a = this.#x(r.before);
      const b = this.#x(to);
      setAttrs(this.#band, { x: Math.min(a, b), width: Math.max(1, Math.abs(b - a)), visibility: "visible" });
    } else this.#band.setAttribute("visibility", "hidden");

    const parts: string[] = [];
    if (r.before !== undefined) parts.push(`before ${fixed(r.before)}`);
    if (r.target !== undefined) parts.push(`target ${fixed(r.target)}`);
    if (r.requested !== undefined) parts.push(`requested ${fixed(r.requested)} (awaiting approval)`);
    if (to !== undefined && r.live !== undefined && !r.stale) {
      const off = Math.abs(r.live - to);
      parts.push(off <= 0.01 ? "at target" : `${fixed(off)} from target`);
    }
    if (out) parts.push("OUTSIDE ITS LIMITS");
    const shown = this.#compact
      ? parts
      : [...parts, `limits ${fixed(this.#axis.min, 2)} .. ${fixed(this.#axis.max, 2)}`];
    setText(this.#detail, shown.join(" \u00b7 "));
    this.#svg.setAttribute(
      "aria-label",
      `${this.#axis.name}: ${this.#value.textContent ?? ""}; ${parts.join(", ")}; limits ${fixed(this.#axis.min, 2)} to ${fixed(this.#axis.max, 2)}`,
    );
  }
}

/** A card's compact gauges, one per axis it moves that the arm describes (an axis the arm does not list is left out). */
export function compactGauges(
  axisNames: readonly string[],
  axes: readonly ArmAxis[],
): { readonly box: HTMLElement; readonly gauges: AxisGauge[] } {
  const box = el("div", { cls: "gauges compact" });
  const gauges: AxisGauge[] = [];
  for (const name of axisNames) {
    const axis = axes.find((a) => a.name === name);
    if (!axis) continue;
    const g = new AxisGauge(axis, { compact: true });
    gauges.push(g);
    box.appendChild(g.root);
  }
  return { box, gauges };
}
