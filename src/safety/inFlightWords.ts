import type { InFlightMotion } from "./InFlightMotions.js";

/**
 * What a refusal made alongside motions in flight tells the caller to do. A
 * motion the bridge is still following ends by itself: retry when it does. A
 * motion whose outcome is unknown waits for an operator and never ends on its
 * own, so "retry when they end" would send a model round a loop of refusals:
 * the words name each such motion and send the model to the operator.
 */
export function whenInFlightEnd(
  motions: readonly Pick<InFlightMotion, "actionId" | "to" | "awaitingOperator">[],
): string {
  const waiting = new Map<string, Set<string>>();
  for (const m of motions) {
    if (m.awaitingOperator !== true) continue;
    const joints = waiting.get(m.actionId) ?? new Set<string>();
    for (const joint of Object.keys(m.to)) joints.add(joint);
    waiting.set(m.actionId, joints);
  }
  if (waiting.size === 0) return "retry when they end";
  const named = [...waiting].map(([id, joints]) => `${id} (${[...joints].join(", ")})`);
  const one = named.length === 1;
  const ids = [...waiting.keys()].join(" ");
  return (
    `${one ? "action" : "actions"} ${named.join(", ")} ${one ? "has" : "have"} an unknown outcome and ${one ? "waits" : "wait"} for an operator's confirmation, ` +
    `so ${one ? "it does" : "they do"} not end by ${one ? "itself" : "themselves"}: ask the operator to confirm what the arm did ` +
    `(in the console, or \`armbridge confirm ${one ? ids : "ID"}\`), then retry`
  );
}

/**
 * `value` and `limit` in words that cannot contradict the comparison made on
 * them: the value to the fewest decimals (at least 3) that tell it apart from
 * the limit, the limit as configured when that is as short. "0.999 … more
 * than 1" was what three fixed decimals printed for 0.9994 beside a margin.
 */
export function apart(value: number, limit: number): { readonly value: string; readonly limit: string } {
  for (let d = 3; d <= 9; d++) {
    const v = value.toFixed(d);
    const l = limit.toFixed(d);
    if (v !== l) return { value: v, limit: decimals(String(limit)) <= d ? String(limit) : l };
  }
  return { value: value.toFixed(9), limit: String(limit) };
}

function decimals(text: string): number {
  const dot = text.indexOf(".");
  return dot < 0 || /e/i.test(text) ? (/e/i.test(text) ? 99 : 0) : text.length - dot - 1;
}
