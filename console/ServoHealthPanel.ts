import { el, setText } from "./dom.js";
import type { ServoAlertView, ServoHealthView } from "./wire.js";

/**
 * Bus servos' health in the arm panel: one line under each joint's gauge
 * (temperature, supply and load against the servo's own limits, tinted when
 * near or past one) and, above the gauges, an alarm box naming each servo
 * that has a hardware error or a reading near a limit, with what to do.
 * Arms whose transport reports no servo health (serial firmware, ROS 2)
 * show nothing here — not zeros. It only shows: motion is the bridge's to
 * admit or refuse.
 */
export class ServoHealthPanel {
  readonly #alerts: HTMLElement;
  readonly #lines = new Map<string, HTMLElement>();
  #alertsKey = "";

  /** `gauges`: the gauges' container; the alarm box goes just above it. */
  constructor(gauges: HTMLElement) {
    this.#alerts = el("div", { cls: "servo-alerts", attrs: { id: "servo-alerts", role: "alert" } });
    this.#alerts.hidden = true;
    gauges.before(this.#alerts);
  }

  /** `gaugeOf`: the gauge element of an axis, where its health line goes. `stale`: the values are the last seen, not now. */
  update(
    health: readonly ServoHealthView[] | undefined,
    stale: boolean,
    gaugeOf: (axis: string) => HTMLElement | undefined,
  ): void {
    const seen = new Set<string>();
    for (const h of health ?? []) {
      const gauge = gaugeOf(h.axis);
      if (!gauge) continue;
      seen.add(h.axis);
      let line = this.#lines.get(h.axis);
      if (!line || line.parentElement !== gauge) {
        line?.remove();
        line = el("div", { cls: "servo-health", attrs: { "data-servo-health": h.axis } });
        gauge.appendChild(line);
        this.#lines.set(h.axis, line);
      }
      const level = worst(h.alerts);
      line.className = `servo-health${level ? ` ${level}` : ""}${stale ? " stale" : ""}`;
      line.dataset.level = level ?? "ok";
      setText(
        line,
        `servo ${h.servo_id}: ${readings(h).join(" \u00b7 ") || "no reading yet"}${stale ? " (last seen)" : ""}`,
      );
    }
    for (const [axis, line] of this.#lines) {
      if (seen.has(axis)) continue;
      line.remove();
      this.#lines.delete(axis);
    }
    this.#renderAlerts((health ?? []).flatMap((h) => h.alerts));
  }

  #renderAlerts(alerts: readonly ServoAlertView[]): void {
    const sorted = [...alerts].sort((a, b) => (a.level === b.level ? 0 : a.level === "alarm" ? -1 : 1));
    const key = sorted.map((a) => `${a.level}|${a.message}`).join("\n");
    if (key === this.#alertsKey) return;
    this.#alertsKey = key;
    this.#alerts.hidden = sorted.length === 0;
    this.#alerts.classList.toggle(
      "has-alarm",
      sorted.some((a) => a.level === "alarm"),
    );
    this.#alerts.replaceChildren(
      ...sorted.map((a) =>
        el("p", { cls: `servo-alert ${a.level}`, attrs: { "data-level": a.level } }, [
          el("b", { text: `${a.level === "alarm" ? "SERVO ALARM" : "Servo warning"}: ${a.message}. ` }),
          document.createTextNode(a.advice),
        ]),
      ),
    );
  }
}

function worst(alerts: readonly ServoAlertView[]): ServoAlertView["level"] | undefined {
  return alerts.some((a) => a.level === "alarm") ? "alarm" : alerts.length > 0 ? "warning" : undefined;
}

/** The readings, each with the servo's own limit beside it where it has one. */
function readings(h: ServoHealthView): string[] {
  const out: string[] = [];
  if (h.temperature_c !== undefined)
    out.push(
      `${h.temperature_c} \u00b0C${h.temperature_limit_c === undefined ? "" : ` (limit ${h.temperature_limit_c})`}`,
    );
  if (h.voltage_v !== undefined)
    out.push(
      `${h.voltage_v.toFixed(1)} V${h.voltage_min_v === undefined || h.voltage_max_v === undefined ? "" : ` (${h.voltage_min_v.toFixed(1)}\u2013${h.voltage_max_v.toFixed(1)})`}`,
    );
  if (h.load_pct !== undefined) out.push(`load ${Math.abs(h.load_pct).toFixed(0)} %`);
  if (h.hardware_errors.length > 0) out.push(`ERROR: ${h.hardware_errors.join(", ").replace(/_/g, " ")}`);
  else if (h.shut_down) out.push("SHUT DOWN: torque off until recovered");
  return out;
}
