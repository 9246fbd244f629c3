import type { ArmConfig } from "../../../config/ArmConfig.js";
import { hardwareErrorNames, type Register } from "../../../protocol/bus/index.js";
import type { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import { readRegister } from "../../../transport/bus/setup/handCalibration.js";
import { identifyServo, modelNumberOf } from "../../../transport/bus/setup/identifyServo.js";
import { servoAxesOf, type ServoAxis } from "../../../protocol/bus/servoAxes.js";
import { judgeTemperature, judgeVoltage, type LimitStanding } from "../../../transport/bus/servoConditionLimits.js";
import { fail, ok, warn, type DoctorCheck } from "./DoctorCheck.js";

/** A reading past a servo's own limit fails, one near it warns (the running bridge's servo health judges the same way). */
const STATUS_OF: Readonly<Record<LimitStanding, DoctorCheck["status"]>> = { inside: "OK", near: "WARN", past: "FAIL" };
const PINGS = 10;

/** Round trip of a ping, then each configured servo: there, the configured model, no hardware error, supply and temperature inside its own limits. Returns the axes that answered. */
export async function checkBus(
  exchange: BusExchange,
  config: ArmConfig,
  link: string,
  signal?: AbortSignal,
): Promise<{ checks: DoctorCheck[]; answering: ServoAxis[] }> {
  const checks: DoctorCheck[] = [];
  const axes = servoAxesOf(config);
  const scan = `armbridge bus scan --serial ${link}`;
  const first = axes[0];
  if (first) checks.push(await checkRoundTrip(exchange, first, scan, signal));
  const answering: ServoAxis[] = [];
  for (const a of axes) {
    const { check, answered } = await checkServoIdentity(exchange, config, a, scan, signal);
    checks.push(check);
    if (answered) answering.push(a);
  }
  checks.push(...(await checkHealth(exchange, answering, signal)));
  return { checks, answering };
}

/** The round trip of PINGS pings of the first servo, against what the wire itself takes at this baud. */
async function checkRoundTrip(
  exchange: BusExchange,
  first: ServoAxis,
  scan: string,
  signal: AbortSignal | undefined,
): Promise<DoctorCheck> {
  const baud = exchange.baud;
  const times: number[] = [];
  for (let i = 0; i < PINGS; i++) {
    const t0 = performance.now();
    const r = await exchange.ping(first.id, signal);
    if (r.replies.some((x) => x.id === first.id)) times.push(performance.now() - t0);
  }
  if (times.length === 0)
    return fail(
      "link",
      `servo ${first.id} (${first.name}) did not answer ${PINGS} pings at ${baud} baud`,
      `check the servos' power and the cable; find what the bus has, at which baud: ${scan}`,
    );
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const wire = exchange.wireMs(20);
  const detail = `round trip ${median.toFixed(1)} ms median, ${(times[times.length - 1] ?? 0).toFixed(1)} ms worst over ${times.length} pings of servo ${first.id} at ${baud} baud`;
  // 10 ms: well above a loaded host's few ms, well below the 16 ms an adapter's default latency timer adds.
  return median > 10 + wire
    ? warn(
        "link",
        `${detail}: slower than the wire (${wire.toFixed(2)} ms)`,
        "lower the USB adapter's latency timer (see latency timer), or a ser2net link's host may be loaded",
      )
    : ok("link", detail);
}

/** Whether the servo at the axis's id answers, alone, as the model the config names. */
async function checkServoIdentity(
  exchange: BusExchange,
  config: ArmConfig,
  a: ServoAxis,
  scan: string,
  signal: AbortSignal | undefined,
): Promise<{ check: DoctorCheck; answered: boolean }> {
  const name = `servo ${a.id}`;
  const who = await identifyServo(exchange, a.id, signal);
  if (!who)
    return {
      answered: false,
      check: fail(
        name,
        `${a.name}: no answer at ${exchange.baud} baud`,
        `check its cable and power (the daisy chain may be broken before it); if it has another id or baud: ${scan}, then armbridge bus set-id / set-baud with it alone on the bus`,
      ),
    };
  if (who.sharedIdEvidence !== undefined)
    return {
      answered: false,
      check: fail(
        name,
        `${a.name}: answers like two servos (${who.sharedIdEvidence})`,
        "connect the servos one at a time and give each its own id: armbridge bus set-id",
      ),
    };
  const want =
    config.arm.joints.find((j) => j.name === a.name)?.servo?.model ??
    (config.arm.gripper?.name === a.name ? config.arm.gripper.servo?.model : undefined);
  const wantNumber = want === undefined ? undefined : modelNumberOf(exchange.protocol, want);
  const is = who.model ?? `model number ${who.modelNumber ?? "?"}`;
  if (want !== undefined && wantNumber === undefined)
    return {
      answered: true,
      check: warn(
        name,
        `${a.name}: ${is}, firmware ${who.firmware ?? "?"}; the config's model ${want} is not one armbridge knows`,
        `name one of ${Object.keys(exchange.protocol.table.modelNumbers).join(", ")} in the config's servo.model`,
      ),
    };
  if (wantNumber !== undefined && who.modelNumber !== wantNumber)
    return {
      answered: true,
      check: fail(
        name,
        `${a.name}: answers as ${is}, the config says ${want}`,
        "a servo of another model sits at this id: swap it, or correct servo.model (and its limits) in the config",
      ),
    };
  return {
    answered: true,
    check: ok(
      name,
      `${a.name}: ${is}, firmware ${who.firmware ?? "?"}${want === undefined ? " (the config names no model to compare)" : ""}`,
    ),
  };
}

async function checkHealth(
  exchange: BusExchange,
  axes: readonly ServoAxis[],
  signal?: AbortSignal,
): Promise<DoctorCheck[]> {
  if (axes.length === 0) return [];
  const table = exchange.protocol.table;
  const setup = table.setup;
  const errors: string[] = [];
  const volts: { text: string; value: number; status: DoctorCheck["status"] }[] = [];
  const temps: { text: string; value: number; status: DoctorCheck["status"] }[] = [];
  const read = (a: ServoAxis, reg: Register): Promise<number | undefined> => readRegister(exchange, a.id, reg, signal);
  for (const a of axes) {
    const hw = await read(a, table.hardwareError);
    if (hw !== undefined && hw !== 0)
      errors.push(`${a.name} (servo ${a.id}): ${hardwareErrorNames(table, hw).join(", ")}`);
    const [v, lo, hi] = [
      await read(a, setup.presentVoltage),
      await read(a, setup.minVoltageLimit),
      await read(a, setup.maxVoltageLimit),
    ];
    if (v !== undefined && lo !== undefined && hi !== undefined) {
      const [V, L, H] = [v * setup.voltageUnit, lo * setup.voltageUnit, hi * setup.voltageUnit];
      const text = `${a.name} ${V.toFixed(1)} V (its limits ${L.toFixed(1)}–${H.toFixed(1)} V)`;
      volts.push({ text, value: V, status: STATUS_OF[judgeVoltage(V, L, H)] });
    }
    const [t, limit] = [await read(a, setup.presentTemperature), await read(a, setup.temperatureLimit)];
    if (t !== undefined && limit !== undefined) {
      temps.push({
        text: `${a.name} ${t} °C (its limit ${limit} °C)`,
        value: t,
        status: STATUS_OF[judgeTemperature(t, limit)],
      });
    }
  }
  const out: DoctorCheck[] = [];
  out.push(
    errors.length === 0
      ? ok("servo errors", "no servo reports a hardware error")
      : fail(
          "servo errors",
          errors.join("; "),
          "look at the arm first (an overload is often something in the way), then `armbridge recover` on a running serve, or power-cycle the servos",
        ),
  );
  const summarize = (check: string, list: typeof volts, unit: string, fixText: string): DoctorCheck => {
    const bad = list.filter((x) => x.status === "FAIL");
    const near = list.filter((x) => x.status === "WARN");
    if (bad.length > 0) return fail(check, bad.map((x) => x.text).join("; "), fixText);
    if (near.length > 0) return warn(check, `near a limit: ${near.map((x) => x.text).join("; ")}`, fixText);
    const values = list.map((x) => x.value);
    const [lo, hi] = [Math.min(...values), Math.max(...values)];
    const span =
      lo === hi
        ? `${lo.toFixed(unit === "V" ? 1 : 0)} ${unit}`
        : `${lo.toFixed(unit === "V" ? 1 : 0)}–${hi.toFixed(unit === "V" ? 1 : 0)} ${unit}`;
    return ok(check, `${list.length} servos at ${span}, each inside its own limits`);
  };
  if (volts.length > 0)
    out.push(
      summarize(
        "supply",
        volts,
        "V",
        "check the power supply's voltage and current rating; a supply that sags under load trips servos on input voltage",
      ),
    );
  if (temps.length > 0)
    out.push(
      summarize(
        "temperature",
        temps,
        "°C",
        "let the servos cool; a servo that runs hot at rest is holding against a load (check the arm's balance)",
      ),
    );
  return out;
}
