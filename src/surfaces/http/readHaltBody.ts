import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import { normaliseOperatorName } from "../../bridge/portVocabulary.js";
import { quoteNames } from "../../validation/nameChoices.js";
import { apiErrorBody } from "./apiErrorBody.js";
import type { ApiErrorBody } from "../../wire/ApiErrorBody.js";

/** Longest operator name and note kept; longer ones are cut there (and the answer says so). */
export const HALT_OPERATOR_MAX = 200;
export const HALT_NOTE_MAX = 2000;
const HALT_FIELDS = ["operator", "note", "joints", "source"] as const;
/** Where a person may say a HALT was pressed; `tool` and `presence` are the bridge's own and cannot be claimed. */
const CLAIMABLE_SOURCES = ["console", "cli", "http"] as const;
type ClaimableSource = (typeof CLAIMABLE_SOURCES)[number];

/** A request body that was not JSON: still a HALT (of every axis), reported after. */
export class UnreadableBody {
  constructor(readonly reason: string) {}
}

/** What a HALT request asks, as far as it can be understood, and what was wrong with it. */
export interface HaltBodyReading {
  readonly operator: string | undefined;
  readonly note: string | undefined;
  /** undefined: every axis (none named, or the names could not all be understood). */
  readonly axes: readonly string[] | undefined;
  readonly source: ClaimableSource;
  /** Each problem with its code, for the answer sent once the halt was acted on. */
  readonly problems: readonly ApiErrorBody["error"][];
}

/**
 * Reads a HALT request without ever refusing it: a stop request always
 * stops. What can be understood is acted on — a joint list that names an
 * axis the arm lacks (or is not a list of names) halts every axis, an
 * over-long name or note is cut, an unknown field or a source nobody may
 * claim is set aside — and each problem is kept, coded, for the answer.
 */
export function readHaltBody(config: ArmConfig, body: unknown): HaltBodyReading {
  const problems: ApiErrorBody["error"][] = [];
  const bad = (issues: string): void =>
    void problems.push(apiErrorBody(new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", { issues })).error);
  if (body instanceof UnreadableBody) bad(`body: ${body.reason}; every axis was halted`);
  const fields: Record<string, unknown> = isRecord(body) ? body : {};
  if (body !== undefined && !(body instanceof UnreadableBody) && !isRecord(body))
    bad("body: expected a JSON object {operator?, note?, joints?, source?}; every axis was halted");
  const strangers = Object.keys(fields).filter((key) => !(HALT_FIELDS as readonly string[]).includes(key));
  for (const key of strangers.slice(0, 10))
    bad(
      `body.${JSON.stringify(key.slice(0, 60))}: not a field of a halt (its fields: ${HALT_FIELDS.join(", ")}); set aside`,
    );
  const operatorText = text(fields.operator, "operator", HALT_OPERATOR_MAX, bad);
  const note = text(fields.note, "note", HALT_NOTE_MAX, bad);
  const axes = readAxes(config, fields.joints, bad, problems);
  let source: ClaimableSource = "http";
  if (fields.source !== undefined) {
    if ((CLAIMABLE_SOURCES as readonly unknown[]).includes(fields.source)) source = fields.source as ClaimableSource;
    else
      bad(
        `body.source: ${JSON.stringify(fields.source)} is not one a request may claim (${CLAIMABLE_SOURCES.join(", ")}); recorded as http`,
      );
  }
  // HALT never waits for a name: one that is only invisible characters counts as none.
  const operator = operatorText === undefined ? undefined : normaliseOperatorName(operatorText);
  return { operator, note, axes, source, problems };
}

/** A string field, cut to `max` characters; anything else is set aside. */
function text(value: unknown, field: string, max: number, bad: (issues: string) => void): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    bad(`body.${field}: expected a string; set aside`);
    return undefined;
  }
  if (value.length <= max) return value;
  bad(`body.${field}: ${value.length} characters, more than ${max}; the first ${max} were kept`);
  return value.slice(0, max);
}

/** The axes named, or undefined (every axis) when none are named or the names cannot all be understood. */
function readAxes(
  config: ArmConfig,
  value: unknown,
  bad: (issues: string) => void,
  problems: ApiErrorBody["error"][],
): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const choices = actuatorsOf(config).map((a) => a.name);
  if (!Array.isArray(value) || value.length === 0 || !value.every((v): v is string => typeof v === "string")) {
    bad(`body.joints: expected a non-empty list of axis names (${choices.join(", ")}); every axis was halted`);
    return undefined;
  }
  const unknown = value.filter((n) => !choices.includes(n));
  if (unknown.length > 0) {
    const where = "body.joints (every axis was halted)";
    problems.push(
      apiErrorBody(
        new ArmbridgeError("ARMB_ERR_AXIS_UNKNOWN", {
          where,
          names: quoteNames(unknown.slice(0, 20)),
          list: choices.join(", "),
          choices,
        }),
      ).error,
    );
    return undefined;
  }
  return [...new Set(value)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof UnreadableBody);
}
