import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { ArmbridgeError } from "../../src/errors.js";
import type { BusProtocol } from "../../src/protocol/bus/index.js";
import { countOf, servoAxesOf, type ServoAxis } from "../../src/protocol/bus/servoAxes.js";
import { formatIssues } from "../../src/validation/formatIssues.js";

/**
 * What is physically on a simulated bus, when it is not simply the arm
 * config's servos mounted as the config says: servos at other ids and
 * bauds, a joint mounted reversed or with its horn off-centre, a servo
 * missing, loose servos in no joint (a new arm's servos, all id 1). Given
 * to `armbridge-sim --bus P --config F --bus-layout FILE` (YAML or JSON):
 *
 *   servos:
 *     - { joint: shoulder_pan, id: 1, center: 2100 }
 *     - { joint: elbow_flex, sign: -1 }             # mounted reversed
 *     - { id: 1, baud: 57600, model: xl330-m288 }   # loose: on the bus, in no joint
 *
 * A joint or gripper the layout does not list is not on the bus (its pings go
 * unanswered). Unlisted fields default to the config's values; `position` is
 * where the horn starts (counts; default: the axis's home, or mid-turn).
 */
const servoFile = z
  .object({
    /** A joint or the gripper of the config; absent for a loose servo. */
    joint: z.string().optional(),
    id: z.number().int().min(0).max(253).optional(),
    baud: z.number().int().positive().optional(),
    model: z.string().optional(),
    firmware: z.array(z.number().int().min(0).max(255)).min(1).max(2).optional(),
    /** The true mount of a joint (default: the config's). */
    center: z.number().finite().optional(),
    sign: z.union([z.literal(1), z.literal(-1)]).optional(),
    counts_per_rev: z.number().int().positive().optional(),
    /** The true travel of a gripper (default: the config's). */
    closed: z.number().finite().optional(),
    open: z.number().finite().optional(),
    position: z.number().finite().optional(),
    voltage: z.number().positive().optional(),
    temperature: z.number().optional(),
  })
  .strict();
export const busLayoutFileSchema = z.object({ servos: z.array(servoFile).max(254) }).strict();
export type BusLayoutFile = z.input<typeof busLayoutFileSchema>;

/** One servo of the simulated bus, resolved. */
export interface LaidOutServo {
  readonly axis: ServoAxis;
  readonly id: number;
  readonly baud: number;
  readonly modelNumber: number;
  readonly firmware: readonly number[];
  readonly startCount: number;
  readonly voltage: number;
  readonly temperature: number;
}

/** The firmware the simulator's servos report unless told otherwise (simulator values, not a real release). */
const SIM_FIRMWARE: Readonly<Record<string, readonly number[]>> = { dynamixel_x: [52], feetech_sts: [3, 10] };
/** A supply each family is commonly run at (V): X-series 12 V (the XL330s 5 V), STS3215 7.4 V. */
const SUPPLY_V: Readonly<Record<string, number>> = { dynamixel_x: 12, feetech_sts: 7.4 };
const supplyFor = (family: string, modelNumber: number, models: Readonly<Record<string, number>>): number => {
  const name = Object.entries(models).find(([, n]) => n === modelNumber)?.[0] ?? "";
  return name.startsWith("xl330") ? 5 : (SUPPLY_V[family] ?? 12);
};

export function readBusLayout(path: string): BusLayoutFile {
  let raw: unknown;
  try {
    const text = readFileSync(path, "utf8");
    raw = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  const parsed = busLayoutFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: formatIssues(parsed.error.issues) });
  return parsed.data;
}

/** The servos on the simulated bus: the layout's, or without one every configured axis as the config mounts it. */
export function layOutServos(
  config: ArmConfig,
  protocol: BusProtocol,
  layout: BusLayoutFile | undefined,
  where = "--bus-layout",
): LaidOutServo[] {
  const table = protocol.table;
  const models = table.modelNumbers;
  const { modelOf, baudOk } = layoutChecks(table, where);
  const bus = config.bus;
  const defaultBaud = bus?.baud ?? table.setup.factoryBaud;
  const axes = servoAxesOf(config);
  const homes = new Map<string, number>([
    ...config.arm.joints.map((j) => [j.name, j.home] as const),
    ...(config.arm.gripper ? [[config.arm.gripper.name, config.arm.gripper.home] as const] : []),
  ]);
  const configModel = (name: string): string | undefined =>
    config.arm.joints.find((j) => j.name === name)?.servo?.model ??
    (config.arm.gripper?.name === name ? config.arm.gripper.servo?.model : undefined);
  const firmware = SIM_FIRMWARE[table.family] ?? [1];
  if (!layout) {
    return axes.map((axis) => {
      const modelNumber = modelOf(configModel(axis.name), axis.name);
      return {
        axis,
        id: axis.id,
        baud: baudOk(defaultBaud, axis.name),
        modelNumber,
        firmware,
        startCount: Math.round(countOf(axis, homes.get(axis.name) ?? 0)),
        voltage: supplyFor(table.family, modelNumber, models),
        temperature: 32,
      };
    });
  }
  const seen = new Set<string>();
  return layout.servos.map((s, i) => {
    const what = `servos[${i}]${s.joint === undefined ? "" : ` (${s.joint})`}`;
    const configured = s.joint === undefined ? undefined : axes.find((a) => a.name === s.joint);
    if (s.joint !== undefined && !configured)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: `${what}: the config has no joint or gripper named ${s.joint}`,
      });
    if (s.joint !== undefined && seen.has(s.joint))
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: `${what}: ${s.joint} is laid out twice`,
      });
    if (s.joint !== undefined) seen.add(s.joint);
    const axis = layoutAxisOf(s, i, configured, table.setup.factoryId);
    const home = configured ? (homes.get(configured.name) ?? 0) : 0;
    const modelNumber = modelOf(s.model ?? (configured ? configModel(configured.name) : undefined), what);
    return {
      axis,
      id: s.id ?? configured?.id ?? table.setup.factoryId,
      baud: baudOk(s.baud ?? defaultBaud, what),
      modelNumber,
      firmware: s.firmware ?? firmware,
      startCount: Math.round(s.position ?? countOf(axis, home)),
      voltage: s.voltage ?? supplyFor(table.family, modelNumber, models),
      temperature: s.temperature ?? 32,
    };
  });
}

/** The axis a laid-out servo turns: the configured one as the layout re-mounts it, or a loose servo's own. */
function layoutAxisOf(
  s: BusLayoutFile["servos"][number],
  i: number,
  configured: ServoAxis | undefined,
  factoryId: number,
): ServoAxis {
  const cpr = s.counts_per_rev ?? 4096;
  if (!configured) {
    // A loose servo turns like a plain joint centred mid-turn; its effects name it by its place in the layout.
    return {
      name: `loose_${i}`,
      kind: "joint",
      id: s.id ?? factoryId,
      countsPerUnit: cpr / (2 * Math.PI),
      zeroCount: cpr / 2,
      gripLimit: undefined,
    };
  }
  if (configured.kind === "joint") {
    const sign = s.sign ?? Math.sign(configured.countsPerUnit);
    const perRev = s.counts_per_rev ?? Math.round(Math.abs(configured.countsPerUnit) * 2 * Math.PI);
    return {
      ...configured,
      countsPerUnit: (perRev / (2 * Math.PI)) * sign,
      zeroCount: s.center ?? configured.zeroCount,
    };
  }
  const closed = s.closed ?? configured.zeroCount;
  const open = s.open ?? configured.zeroCount + configured.countsPerUnit;
  return { ...configured, zeroCount: closed, countsPerUnit: open - closed };
}

/** A layout's model names and bauds checked against what the servo family knows. */
function layoutChecks(
  table: BusProtocol["table"],
  where: string,
): { modelOf: (name: string | undefined, what: string) => number; baudOk: (baud: number, what: string) => number } {
  const models = table.modelNumbers;
  const modelOf = (name: string | undefined, what: string): number => {
    if (name === undefined) return Object.values(models)[0] ?? 0;
    const n = models[name.toLowerCase()];
    if (n === undefined)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: `${what}: model ${name} is not a ${table.family} model armbridge knows (${Object.keys(models).join(", ")})`,
      });
    return n;
  };
  const baudOk = (baud: number, what: string): number => {
    if (table.setup.baudValues[baud] === undefined)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: where,
        issues: `${what}: ${baud} baud is not one a ${table.family} servo can be set to (${Object.keys(table.setup.baudValues).join(", ")})`,
      });
    return baud;
  };
  return { modelOf, baudOk };
}
