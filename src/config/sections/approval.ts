import { z } from "zod";
import { name, namedRecord, positive } from "../schemaPrimitives.js";

/**
 * Whether a tool's calls wait for an operator's approval before anything is
 * sent: `never` (the default), `always`, or only when the motion's targets
 * include one of `joints` (joint or gripper names, e.g. `{joints: [wrist_1]}`).
 */
const approvalRuleFile = z.union([
  z.enum(["never", "always"]),
  z
    .object({ joints: z.array(name).min(1).max(65) })
    .strict(),
]);

/** The operator's part (docs/architecture.md, "Approval before motion" and "Operator presence"). */
export const approvalSection = {
  approval: namedRecord(approvalRuleFile)
    .default({})
    .describe("Tool name → `never`, `always` or `{joints: [...]}`: which calls wait for an operator's approval. `stop` is never gated."),
  approval_timeout_ms: positive
    .max(86_400_000)
    .default(120_000)
    .describe("How long a call waits for an operator's approval before it is rejected (expired)."),
  operator_presence: z
    .object({
      required: z
        .boolean()
        .describe("Admit motions only while an operator console with a named operator is open and heartbeating."),
      timeout_ms: z
        .number()
        .int()
        .min(250)
        .max(60_000)
        .default(2000)
        .describe("When the last console goes quiet this long mid-motion, the bridge halts the arm."),
    })
    .strict()
    .optional()
    .describe("Hold-to-run."),
};

/** A tool's approval rule, as the executor applies it. */
export type ApprovalRule =
  | { readonly kind: "never" }
  | { readonly kind: "always" }
  | { readonly kind: "joints"; readonly joints: readonly string[] };

export function toApprovalRules(approval: Record<string, "never" | "always" | { joints: string[] }>) {
  return Object.fromEntries(
    Object.entries(approval).map(([tool, rule]): [string, ApprovalRule] => [
      tool,
      typeof rule === "string" ? { kind: rule } : { kind: "joints", joints: rule.joints },
    ]),
  );
}
