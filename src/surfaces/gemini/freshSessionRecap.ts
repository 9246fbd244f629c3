import { randomBytes } from "node:crypto";
import { resultOf, toFunctionResponse } from "../toFunctionResponse.js";
import type { CallExecutor } from "./GeminiToolAdapter.js";
import type { RunMotion } from "./RunMotionLog.js";

/** Ledger reads for a recap get this long. */
const RECAP_READ_MS = 5_000;
/** The newest actions a recap lists one by one (one executor batch; a batch holds at most 64 calls). */
export const RECAP_MAX_ACTIONS = 40;

/**
 * What a fresh session is told when the old one could not be resumed (no
 * handle yet, or the server refused it): every action this run started, as
 * the intent ledger has it now (`get_action_status`, through the executor, so
 * it works on any bridge the agent drives), oldest first. An action still
 * `started` is under way: the run tells its outcome once it settles, and a
 * repeat of it joins it if no other motion request comes first. An afternoon's run lists its newest RECAP_MAX_ACTIONS
 * actions and counts the older ones, which the ledger keeps.
 */
export async function freshSessionRecap(
  executor: CallExecutor,
  motions: readonly RunMotion[],
  signal: AbortSignal,
): Promise<string> {
  const head =
    "[armbridge] The connection to the model was lost and the session could not be resumed, so this is a new session of the same run. The instruction above still stands.";
  if (motions.length === 0) return `${head} The arm has not moved in this run yet.`;
  const older = Math.max(0, motions.length - RECAP_MAX_ACTIONS);
  const listed = motions.slice(older);
  const tag = randomBytes(4).toString("hex");
  const reads = listed.map((m, i) => ({
    id: `armb_recap_${tag}_${i}`,
    name: "get_action_status",
    args: { action_id: m.actionId },
  }));
  const responses = await executor.execute(reads, { deadlineMs: RECAP_READ_MS, signal });
  const lines = listed.map((m, i) => {
    const r = responses[i];
    const result = r ? resultOf(toFunctionResponse(r).response) : undefined;
    const state =
      result?.status === "done" && typeof result.output?.state === "string" ? result.output.state : undefined;
    const what = `- call ${m.call.id} ${m.call.name} ${JSON.stringify(m.call.args ?? {})}, action ${m.actionId}`;
    if (state === undefined) return `${what}: not readable from the ledger now (${result?.message ?? "no answer"})`;
    if (state === "started")
      return `${what}: still under way; you will be told its outcome when it settles (calling it again joins it, it does not move twice, as long as you ask for no other motion first)`;
    return `${what}: ${state}. ${result?.message ?? ""}`.trim();
  });
  return [
    head,
    "What the arm already did in this run, from the intent ledger (oldest first):",
    ...(older > 0
      ? [`- ${older} earlier action(s), older than these; the ledger keeps them (get_action_status reads one)`]
      : []),
    ...lines,
    "The arm is where these left it. Go on from there; calling a function now starts a new motion.",
  ].join("\n");
}
