import { readFileSync } from "node:fs";
import type { Content, Part } from "@google/genai";
import { z } from "zod";
import type { CallStatus } from "../../bridge/BridgePort.js";
import { CALL_STATUSES } from "../../bridge/portVocabulary.js";
import { ArmbridgeError } from "../../errors.js";
import { imageDeliveredFor } from "./imageDeliveredFor.js";
import { locateColourInImage } from "./locateColourInImage.js";
import { turnFromContent, type ModelClient, type ModelRequest, type ModelTurn } from "./ModelClient.js";
import { namedColour } from "../../imaging/sim/namedColour.js";

const statuses = Object.keys(CALL_STATUSES) as [CallStatus, ...CallStatus[]];

/** Keys any turn line may carry besides the turn itself (armbridge extensions, never sent to a model). */
const extras = {
  deadline_ms: z.number().int().positive().optional(),
  note: z.string().optional(),
  expect: z.record(z.string(), z.enum(statuses)).optional(),
};

const partSchema = z.record(z.string(), z.unknown());
const contentSchema = z.object({ role: z.literal("model").optional(), parts: z.array(partSchema).min(1) }).loose();

/** `{"candidates":[{"content":{"role":"model","parts":[...]}}]}`: a GenerateContentResponse as the API returns it. */
const responseLine = z
  .object({ candidates: z.array(z.object({ content: contentSchema }).loose()).min(1), ...extras })
  .loose();

/** A transcript line of type `model_turn`: a transcript is itself a replay file. */
const transcriptLine = z.object({ type: z.literal("model_turn"), content: contentSchema, ...extras }).loose();

/** The short form for hand-written scripts. */
const simpleLine = z
  .object({
    calls: z
      .array(
        z
          .object({
            id: z.string().min(1).optional(),
            name: z.string().min(1),
            args: z.record(z.string(), z.unknown()).optional(),
            locate: z
              .object({
                /** The argument that receives the point (default "point"). */
                arg: z.string().min(1).default("point"),
                /** The id of the earlier call whose response delivered the image. */
                image_from: z.string().min(1),
                /** What to look for: a colour name of the simulated scene, or #rrggbb. */
                colour: z.string().min(1),
              })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .min(1)
      .optional(),
    text: z.string().optional(),
    ...extras,
  })
  .strict()
  .refine((l) => l.calls !== undefined || l.text !== undefined, { message: 'a turn needs "calls", "text" or both' });

/** A call argument the replay reads out of an image the session delivered, as a vision model would. */
interface Locate {
  /** Index of the call in the turn's calls. */
  readonly call: number;
  readonly arg: string;
  readonly imageFrom: string;
  readonly colour: string;
}

interface ReplayTurn {
  readonly turn: ModelTurn;
  /** 1-based line in the file, for error messages. */
  readonly line: number;
  readonly locates: readonly Locate[];
}

/**
 * Replays recorded model turns, in order, offline (`--model replay:FILE`).
 *
 * File format: JSON Lines. Blank lines and lines starting with `#` or `//`
 * are comments. Every other line is one model turn, in one of three forms:
 *   1. `{"candidates":[{"content":{"role":"model","parts":[...]}}]}` — a
 *      GenerateContentResponse as recorded from the API;
 *   2. `{"type":"model_turn","content":{...}}` — a line of an armbridge
 *      transcript (other transcript lines are skipped), so a transcript of a
 *      real session replays as it is;
 *   3. `{"calls":[{"id":"c1","name":"move_joints","args":{...}}],"text":"..."}`
 *      — the short form; `text` alone is a final answer.
 * A short-form call may add `locate: {arg?, image_from, colour}`: that
 * argument (default `point`) is read, when the turn is handed out, from the
 * image the session delivered for call `image_from` — the point `[y, x]`
 * (0–1000) of the colour's largest blob, as a Gemini Robotics-ER model would
 * point at it (see `locateColourInImage`).
 * Any form may add `deadline_ms` (this turn's calls get at most that run
 * deadline), `note` (what the turn shows) and `expect` (`{"c1":"done"}`: the
 * status each call should end with; a miss is reported, not fatal).
 *
 * Replay also checks the loop: before handing out turn N+1 it verifies that
 * the last message sent back answers turn N's calls, one functionResponse per
 * call, in order, with the same id and name. Any other reply, or a request
 * for more turns than recorded, is ARMB_ERR_GEMINI_REPLAY.
 */
export class ReplayModelClient implements ModelClient {
  readonly model: string;
  readonly path: string;
  readonly #turns: readonly ReplayTurn[];
  #next = 0;
  readonly #misses: string[] = [];

  private constructor(path: string, turns: readonly ReplayTurn[]) {
    this.path = path;
    this.model = `replay:${path}`;
    this.#turns = turns;
  }

  static fromFile(path: string): ReplayModelClient {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", { path, reason: (error as Error).message }, { cause: error });
    }
    return ReplayModelClient.fromText(text, path);
  }

  static fromText(text: string, path = "(inline)"): ReplayModelClient {
    const fail = (line: number, reason: string): never => {
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", { path, reason: `line ${line}: ${reason}` });
    };
    const turns: ReplayTurn[] = [];
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = i + 1;
      const trimmed = raw.trim();
      if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("//")) return;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (error) {
        fail(line, `not JSON (${(error as Error).message})`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value))
        fail(line, "a turn must be a JSON object");
      const parsed = parseTurn(value as Record<string, unknown>, (reason) => fail(line, reason));
      if (parsed) turns.push({ ...parsed, line });
    });
    if (turns.length === 0)
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", { path, reason: "no model turns in the file" });
    return new ReplayModelClient(path, turns);
  }

  /** How many turns the file holds. */
  get length(): number {
    return this.#turns.length;
  }

  /** Calls whose status differed from the file's `expect`, in words. */
  expectationMisses(): readonly string[] {
    return this.#misses;
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    if (request.signal.aborted) throw request.signal.reason;
    const previous = this.#next > 0 ? this.#turns[this.#next - 1] : undefined;
    if (previous && previous.turn.calls.length > 0) this.#checkReply(previous, request.contents.at(-1));
    const next = this.#turns[this.#next];
    if (!next) {
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", {
        path: this.path,
        reason: `the session asked for model turn ${this.#next + 1}, but the file records ${this.#turns.length}`,
      });
    }
    this.#next++;
    return next.locates.length === 0 ? next.turn : this.#located(next, request.contents);
  }

  /**
   * The turn with each `locate` argument filled in from the image the
   * session delivered for the named call: the point of the colour's largest
   * blob, `[y, x]` in 0–1000, as Gemini Robotics-ER points. Reading the
   * delivered picture (not a pixel written in the file) means a camera that
   * renders the scene elsewhere, or delivers no image, shows up here.
   */
  #located(replay: ReplayTurn, contents: readonly Content[]): ModelTurn {
    const fail = (reason: string): never => {
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", {
        path: this.path,
        reason: `turn on line ${replay.line}: ${reason}`,
      });
    };
    const calls = replay.turn.calls.map((c) => ({ ...c, args: { ...(c.args ?? {}) } }));
    for (const l of replay.locates) {
      const image = imageDeliveredFor(contents, l.imageFrom);
      if (!image)
        return fail(
          `no image was delivered for call ${JSON.stringify(l.imageFrom)} (looked in its functionResponse and the user turn around it)`,
        );
      let rgb: readonly [number, number, number];
      try {
        rgb = namedColour(l.colour);
      } catch (error) {
        return fail(`locate.colour ${JSON.stringify(l.colour)}: ${(error as Error).message}`);
      }
      let found;
      try {
        found = locateColourInImage(image.bytes, rgb);
      } catch (error) {
        return fail(
          `the image delivered for ${l.imageFrom} (${image.mimeType}) cannot be read: ${(error as Error).message}`,
        );
      }
      if (!found) return fail(`nothing ${l.colour} in the image delivered for ${l.imageFrom}`);
      const call = calls[l.call];
      if (call) call.args[l.arg] = [...found.point];
    }
    const parts = (replay.turn.content.parts ?? []).map((p) => {
      if (!p.functionCall) return p;
      const index = replay.turn.calls.indexOf(p.functionCall);
      const located = index === -1 ? undefined : calls[index];
      return located ? { ...p, functionCall: located } : p;
    });
    return turnFromContent(
      { role: "model", parts },
      { deadlineMs: replay.turn.deadlineMs, note: replay.turn.note, expect: replay.turn.expect },
    );
  }

  #checkReply(previous: ReplayTurn, last: Content | undefined): void {
    const fail = (reason: string): never => {
      throw new ArmbridgeError("ARMB_ERR_GEMINI_REPLAY", {
        path: this.path,
        reason: `reply to the turn on line ${previous.line}: ${reason}`,
      });
    };
    const responses = (last?.parts ?? []).flatMap((p: Part) => (p.functionResponse ? [p.functionResponse] : []));
    if (!last || last.role !== "user" || responses.length === 0) fail("expected a user turn of functionResponse parts");
    const calls = previous.turn.calls;
    if (responses.length !== calls.length) fail(`${calls.length} call(s) but ${responses.length} functionResponse(s)`);
    calls.forEach((call, i) => {
      const r = responses[i];
      const where = `functionResponse ${i + 1}`;
      if (!r) return;
      if (r.name !== call.name)
        fail(`${where} is named ${JSON.stringify(r.name)}, the call was ${JSON.stringify(call.name)}`);
      if (call.id !== undefined ? r.id !== call.id : typeof r.id !== "string" || r.id.length === 0) {
        fail(
          `${where} has id ${JSON.stringify(r.id)}, the recorded call has id ${JSON.stringify(call.id ?? "(any, assigned by the bridge)")}`,
        );
      }
      const want = call.id === undefined ? undefined : previous.turn.expect?.[call.id];
      const got = statusOf(r.response);
      if (want !== undefined && got !== want)
        this.#misses.push(`call ${call.id} (${call.name}) ended ${got ?? "(no status)"}, the script expects ${want}`);
    });
  }
}

function parseTurn(
  value: Record<string, unknown>,
  fail: (reason: string) => never,
): { turn: ModelTurn; locates: Locate[] } | undefined {
  const issues = (e: z.ZodError): string =>
    e.issues.map((i) => `${i.path.join(".") || "(line)"}: ${i.message}`).join("; ");
  const extrasOf = (l: {
    deadline_ms?: number | undefined;
    note?: string | undefined;
    expect?: Record<string, CallStatus> | undefined;
  }): Pick<ModelTurn, "deadlineMs" | "note" | "expect"> => ({
    ...(l.deadline_ms === undefined ? {} : { deadlineMs: l.deadline_ms }),
    ...(l.note === undefined ? {} : { note: l.note }),
    ...(l.expect === undefined ? {} : { expect: l.expect }),
  });
  if ("type" in value) {
    if (value.type !== "model_turn") return undefined;
    const p = transcriptLine.safeParse(value);
    if (!p.success) fail(issues(p.error));
    return { turn: checkedTurn(p.data.content, extrasOf(p.data), fail), locates: [] };
  }
  if ("candidates" in value) {
    const p = responseLine.safeParse(value);
    if (!p.success) fail(issues(p.error));
    return { turn: checkedTurn(p.data.candidates[0]?.content ?? { parts: [] }, extrasOf(p.data), fail), locates: [] };
  }
  const p = simpleLine.safeParse(value);
  if (!p.success) fail(issues(p.error));
  const parts: Part[] = [];
  if (p.data.text !== undefined) parts.push({ text: p.data.text });
  const locates: Locate[] = [];
  (p.data.calls ?? []).forEach((c, i) => {
    parts.push({
      functionCall: {
        ...(c.id === undefined ? {} : { id: c.id }),
        name: c.name,
        ...(c.args === undefined ? {} : { args: c.args }),
      },
    });
    if (c.locate) locates.push({ call: i, arg: c.locate.arg, imageFrom: c.locate.image_from, colour: c.locate.colour });
  });
  return {
    turn: checkedTurn({ role: "model", parts: parts as Record<string, unknown>[] }, extrasOf(p.data), fail),
    locates,
  };
}

function checkedTurn(
  raw: { role?: "model" | undefined; parts: Record<string, unknown>[] },
  extras: Pick<ModelTurn, "deadlineMs" | "note" | "expect">,
  fail: (reason: string) => never,
): ModelTurn {
  const content: Content = { role: "model", parts: raw.parts };
  const turn = turnFromContent(content, extras);
  for (const c of turn.calls) if (typeof c.name !== "string" || c.name === "") fail("a functionCall without a name");
  const ids = turn.calls.flatMap((c) => (c.id === undefined ? [] : [c.id]));
  for (const id of Object.keys(extras.expect ?? {}))
    if (!ids.includes(id)) fail(`expect names ${JSON.stringify(id)}, which no call of this turn has`);
  if (turn.calls.length === 0 && turn.text === "") fail("a turn with neither function calls nor text");
  return turn;
}

function statusOf(response: Record<string, unknown> | undefined): string | undefined {
  const body = (response?.output ?? response?.error) as { status?: unknown } | undefined;
  return typeof body?.status === "string" ? body.status : undefined;
}
