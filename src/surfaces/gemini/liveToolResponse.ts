import type { LiveSendToolResponseParameters } from "@google/genai";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { DispatchedCall } from "./dispatchLiveCalls.js";
import type { LiveSentRecord } from "./LiveSentRecord.js";
import type { UndeliveredMotions } from "./UndeliveredMotions.js";

/**
 * The toolResponse answering these calls, and its record: which motions'
 * outcomes it tells — a joined call tells its motion's, a motion call its
 * own (without pictures: enough to tell the outcome again). Reads and halts
 * are left out: a resumed model that asks again for them gets a fresh answer.
 */
export function liveToolResponse(
  calls: readonly Pick<DispatchedCall, "call" | "joined">[],
  responses: readonly FunctionResponse[],
  undelivered: Pick<UndeliveredMotions, "keyOf">,
): { readonly params: LiveSendToolResponseParameters; readonly record: LiveSentRecord } {
  const motions = calls.flatMap((c, i) => {
    if (c.joined) return [{ call: c.joined.call, response: c.joined.response }];
    const r = responses[i] as FunctionResponse;
    return undelivered.keyOf(c.call) === undefined
      ? []
      : [
          {
            call: c.call,
            response: Promise.resolve<FunctionResponse>({ id: r.id, name: r.name, response: r.response }),
          },
        ];
  });
  return {
    // A result's pictures go inside its function response (FunctionResponse.parts): a separate clientContent turn now would itself interrupt the model.
    params: {
      functionResponses: responses.map((r) => ({
        id: r.id,
        name: r.name,
        response: { ...r.response },
        ...(r.parts ? { parts: r.parts.map((p) => ({ inlineData: { ...p.inlineData } })) } : {}),
      })),
    },
    record: { kind: "motion_outcomes", motions },
  };
}
