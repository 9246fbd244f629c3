import type { ApprovalRule, ArmConfig } from "../config/ArmConfig.js";
import { ArmbridgeError } from "../errors.js";
import type { ToolRegistry } from "../tools/ToolRegistry.js";

/**
 * Refuses approval rules that would not do what they say: a tool name the
 * registry does not know (a typo would silently never gate), or a rule on a
 * tool that sends no motion (only motions wait for approval; `stop` never does).
 */
export function checkApprovalRules(config: ArmConfig, registry: ToolRegistry): void {
  for (const [tool, rule] of Object.entries(config.approval)) {
    if (rule.kind === "never") continue;
    const t = registry.get(tool);
    const issue = !t
      ? `approval.${tool}: no tool named ${tool} (known: ${registry.names().join(", ")})`
      : !t.blocking
        ? `approval.${tool}: ${tool} sends no motion, so there is nothing to approve${tool === "stop" ? " (stop is never gated)" : ""}`
        : undefined;
    if (issue) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: "approval", issues: issue });
  }
}

/** Why this motion needs an operator's approval, or undefined when it does not. */
export function approvalNeeded(rule: ApprovalRule | undefined, targets: Readonly<Record<string, number>>): string | undefined {
  if (!rule) return undefined;
  switch (rule.kind) {
    case "never":
      return undefined;
    case "always":
      return "approval: always";
    case "joints": {
      const hit = Object.keys(targets).filter((axis) => rule.joints.includes(axis));
      return hit.length > 0 ? `approval: it moves ${hit.join(", ")}` : undefined;
    }
  }
}
