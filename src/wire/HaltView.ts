import { HALT_SOURCES } from "./vocabulary.js";
import * as z from "zod/mini";
import { API_ERROR_BODY } from "./ApiErrorBody.js";
import { CLIENT_VIEW } from "./ClientView.js";
import type { WireOf } from "./WireOf.js";

/** One halt as the API shows it: who asked, what the arm said, who released it. */
export const HALT_VIEW = z.strictObject({
  halt_id: z.string(),
  /** Epoch ms it was sent. */
  halted_at: z.number(),
  /** console, tool (a model's stop call), cli, http, presence (the operator's console went quiet mid-motion). */
  source: z.enum(HALT_SOURCES),
  operator: z.nullable(z.string()),
  call_id: z.nullable(z.string()),
  /** Who asked, as the actions table names clients (the console's HALT: console and the operator's name); null for the bridge's own halt. */
  client: z.nullable(CLIENT_VIEW),
  /** The axes halted; null for every axis. */
  axes: z.nullable(z.array(z.string())),
  note: z.nullable(z.string()),
  /** null while the arm has not answered; true: it reports the axes halted; false: it did not confirm (detail says why) — the arm may still be moving. */
  confirmed: z.nullable(z.boolean()),
  detail: z.nullable(z.string()),
  /** The pose the arm reported after the halt. */
  pose: z.nullable(z.record(z.string(), z.number())),
  answered_at: z.nullable(z.number()),
  released_at: z.nullable(z.number()),
  released_by: z.nullable(z.string()),
  release_note: z.nullable(z.string()),
  /** Who halted, in words ("the operator ana (console)", "a stop call (call c-7)"). */
  who: z.string(),
});
export type HaltView = WireOf<typeof HALT_VIEW>;

/** POST /v1/halt: the halt once the arm answered (or did not in time), and what it means. */
export const HALT_ANSWER = z.strictObject({
  /** True only when the arm confirmed the halt. */
  halted: z.boolean(),
  halt: HALT_VIEW,
  /** In words for the operator: confirmed, or not (why, and what to do). */
  message: z.string(),
  /** What was wrong with the request, each coded: a HALT is acted on first (every axis when its joints are unclear) and its problems reported after. */
  problems: z.optional(z.array(API_ERROR_BODY.shape.error)),
});
export type HaltAnswer = WireOf<typeof HALT_ANSWER>;

/** POST /v1/halt/release: the halts released (every open one) by the operator named. */
export const HALT_RELEASE_ANSWER = z.strictObject({ released: z.array(HALT_VIEW), message: z.string() });
export type HaltReleaseAnswer = WireOf<typeof HALT_RELEASE_ANSWER>;
