import type { ApprovalRule, ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import type { ToolRegistry } from "../toolContract/ToolRegistry.js";

/**
 * Motion tools of armbridge's contract that an arm may lack (no URDF, five
 * axes, no gripper, no camera): a config written for many arms may name
 * them, so on an arm without them the rule is only warned about.
 */
const CONTRACT_MOTION_TOOLS = new Set([
  "move_joints",
  "move_to_named_pose",
  "move_to_point",
  "move_to_pose",
  "set_gripper",
  "move_to_image_point",
]);

/**
 * Refuses approval rules that would not do what they say: a tool name no one
 * knows (a typo would silently never gate), or a rule on a tool that sends no
 * motion (only motions wait for approval; `stop` never does). Returns
 * warnings for rules on contract tools this arm does not have.
 */
export function checkApprovalRules(config: ArmConfig, registry: ToolRegistry): string[] {
  const warnings: string[] = [];
  for (const [tool, rule] of Object.entries(config.approval)) {
    if (rule.kind === "never") continue;
    const t = registry.get(tool);
    if (!t && CONTRACT_MOTION_TOOLS.has(tool)) {
      warnings.push(`approval.${tool}: this arm has no ${tool} tool, so the rule has nothing to gate`);
      continue;
    }
    const issue = !t
      ? `approval.${tool}: no tool named ${tool} (known: ${registry.names().join(", ")})`
      : !t.blocking
        ? `approval.${tool}: ${tool} sends no motion, so there is nothing to approve${tool === "stop" ? " (stop is never gated)" : ""}`
        : undefined;
    if (issue) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: "approval", issues: issue });
  }
  return warnings;
}

/**
 * Where operators answer approval requests. `present`: an HTTP API with its
 * console (serve, demo, an embedded mode given a console); `none`: nothing
 * an operator could reach, with the reason in words for the error.
 */
export type OperatorSurface = { readonly kind: "present" } | { readonly kind: "none"; readonly why: string };

/** The tools the config gates on an operator's approval (a rule other than `never`). */
export function gatedTools(config: ArmConfig): string[] {
  return Object.entries(config.approval)
    .filter(([, rule]) => rule.kind !== "never")
    .map(([tool]) => tool)
    .sort();
}

/**
 * Refuses approval rules no one could answer: with no operator surface, a
 * gated call can only wait out approval_timeout_s and expire, while the
 * model is told to ask a person to approve it. Checked on the surface, not
 * the command's name, so a mode that gains a console gains its gates.
 */
export function checkApprovalAnswerable(config: ArmConfig, surface: OperatorSurface): void {
  if (surface.kind === "present") return;
  const tools = gatedTools(config);
  if (tools.length === 0) return;
  throw new ArmbridgeError("ARMB_ERR_APPROVAL_UNANSWERABLE", {
    tools: tools.map((t) => `approval.${t}`),
    why: surface.why,
    tool: tools[0],
  });
}

/** Why this motion needs an operator's approval, or undefined when it does not. */
export function approvalNeeded(
  rule: ApprovalRule | undefined,
  targets: Readonly<Record<string, number>>,
): string | undefined {
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
