import type { ArmConfig } from "../../config/ArmConfig.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { ObserveFn } from "../toolContract/ToolDefinition.js";
import type { ToolRegistry } from "../toolContract/ToolRegistry.js";
import { observeTargets } from "../toolContract/observeTargets.js";
import type { ArmStatus } from "../../transport/Transport.js";
import type { ActionSettler } from "../motion/ActionSettler.js";
import { judgeAction } from "../motion/judgeAction.js";
import type { Quarantine } from "../arm/Quarantine.js";

export interface LaterObservationDeps {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly ledger: IntentLedger;
  readonly quarantine: Quarantine;
  readonly settler: ActionSettler;
  readonly now: () => number;
}

/** The observation path of a recorded motion's tool (the default one when the tool is gone). */
export function observeFnOf(registry: ToolRegistry, toolName: string): ObserveFn {
  const tool = registry.get(toolName);
  return tool?.blocking ? tool.observe : observeTargets;
}

/**
 * Later observation: an `unknown` action that a status from the arm now
 * accounts for is settled without an operator, by the same judgement and the
 * same settlement path as any other.
 */
export function resolveUnknownsFrom(status: ArmStatus, d: LaterObservationDeps): void {
  if (status.actions.length === 0) return;
  for (const actionId of d.quarantine.actionIds()) {
    const record = status.actions.find((a) => a.actionId === actionId);
    if (!record) continue;
    const row = d.ledger.get(actionId);
    if (!row || row.state !== "unknown") continue;
    const command = row.command;
    if (!command) continue;
    // The arm reports its own record of the id in this status: it is the incarnation that knows it.
    const j = judgeAction(
      observeFnOf(d.registry, row.tool),
      { command, config: d.config, status, record, nowMs: d.now() },
      { armRestarted: false },
    );
    if (j.kind !== "settled" || j.verdict.kind === "interrupted") continue;
    d.settler.settle(actionId, j.verdict, {
      by: "observation",
      timedOut: row.timedOut,
      record,
      status,
      notes: ["settled by a later observation", ...j.notes],
    });
  }
}
