import type { Content } from "@google/genai";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { IdentifiedCall } from "./GeminiToolAdapter.js";

/**
 * What a Live message we sent carried, kept until a resumable handle covers
 * it: on a loss before that, the resumed session may not contain it.
 * `user_content` (the instruction, a user turn) is never sent again to a
 * resumed session, which is told instead that it may lack it
 * (UNREPEATED_USER_TURN_NOTE); `motion_outcomes` (a tool response or a note
 * telling motions' outcomes) that the model had not read yet makes those
 * motions undelivered again, so the resumed model is told them once more and
 * a repeat joins them.
 */
export type LiveSentRecord =
  | { readonly kind: "user_content"; readonly content: Content }
  | {
      readonly kind: "motion_outcomes";
      readonly motions: readonly { readonly call: IdentifiedCall; readonly response: Promise<FunctionResponse> }[];
    };
