import { ImageBudget } from "../../src/cameras/ImageBudget.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import {
  defineMotionTool,
  defineReadTool,
  type HaltContext,
  type ReadContext,
} from "../../src/executor/toolContract/ToolDefinition.js";
import { observeTargets } from "../../src/executor/toolContract/observeTargets.js";
import { ToolRegistry } from "../../src/executor/toolContract/ToolRegistry.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { FakeArm } from "../support/FakeArm.js";
import { testConfig } from "../support/testConfig.js";

// A read tool (and a motion tool while it plans) gets reads only: nothing in
// its context sends, stops or records a motion. A halt tool gets the reads
// and halt, nothing more. The types say so (the @ts-expect-error lines fail
// `npm run typecheck` if a context ever grows a way to the transport), and
// the objects the executor hands out carry nothing else at run time.

const READ_KEYS = ["action", "config", "halted", "latestStatus", "now", "quarantined"];

describe("tool contexts", () => {
  const config = testConfig();
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function executorWith(registry: ToolRegistry): Promise<{ executor: Executor; arm: FakeArm }> {
    const arm = new FakeArm(config);
    await arm.open();
    const ledger = IntentLedger.open(":memory:");
    const executor = composeExecutor({ config, registry, transport: arm, ledger });
    close = async () => {
      executor.close();
      await arm.close();
      ledger.close();
    };
    return { executor, arm };
  }

  it("a read tool's context has reads only; a halt tool's adds halt; a motion tool plans with reads only", async () => {
    const seen: { read?: ReadContext; halt?: HaltContext; plan?: ReadContext } = {};
    const registry = new ToolRegistry()
      .register(
        defineReadTool({
          name: "peek",
          description: "Reads.",
          args: z.object({}).strict(),
          blocking: false,
          kind: "read",
          timeoutMs: 1000,
          run: async (_args, ctx) => {
            seen.read = ctx;
            // @ts-expect-error a read tool cannot reach the transport
            void ctx.transport;
            // @ts-expect-error nor halt the arm
            void ctx.halt;
            // @ts-expect-error nor write to the ledger
            void ctx.ledger;
            return { message: "read", data: {} };
          },
        }),
      )
      .register(
        defineReadTool({
          name: "halt_all",
          description: "Halts.",
          args: z.object({}).strict(),
          blocking: false,
          kind: "halt",
          timeoutMs: 1000,
          understood: () => ({}),
          run: async (_args, ctx, signal) => {
            seen.halt = ctx;
            // @ts-expect-error a halt tool cannot send a motion
            void ctx.runMotion;
            const halted = await ctx.halt({ signal });
            return { message: "halted", data: { halted: halted.result.halted } };
          },
        }),
      )
      .register(
        defineMotionTool({
          name: "nudge",
          description: "Moves.",
          args: z.object({}).strict(),
          blocking: true,
          resources: () => ["joint:" + config.arm.joints[0]!.name],
          timeoutMs: 5000,
          onTimeout: "observe",
          plan: (_args, ctx) => {
            seen.plan = ctx;
            // @ts-expect-error planning cannot send a motion itself
            void ctx.transport;
            return { targets: { [config.arm.joints[0]!.name]: config.arm.joints[0]!.home }, speed: 0.5 };
          },
          observe: observeTargets,
        }),
      );
    const { executor, arm } = await executorWith(registry);
    // The halt goes last: it latches the bridge, and a motion after it would be refused.
    const first = await executor.execute([
      { id: "r", name: "peek", args: {} },
      { id: "m", name: "nudge", args: {} },
    ]);
    const responses = [first[0]!, ...(await executor.execute([{ id: "h", name: "halt_all", args: {} }])), first[1]!];
    expect(responses.map((r) => r.result.status)).toEqual(["done", "done", "done"]);

    // A read tool's call also carries its response's picture budget (a counter, not a way to the arm).
    expect(Object.keys(seen.read!).sort()).toEqual([...READ_KEYS, "imageBudget"].sort());
    expect(seen.read!.imageBudget).toBeInstanceOf(ImageBudget);
    expect(Object.keys(seen.plan!).sort()).toEqual(READ_KEYS);
    expect(Object.keys(seen.halt!).sort()).toEqual([...READ_KEYS, "halt"].sort());
    // Nothing handed out is the transport or the ledger itself.
    for (const ctx of [seen.read!, seen.plan!, seen.halt!])
      for (const value of Object.values(ctx)) expect(value).not.toBe(arm);
    // The reads read what the transport and the ledger hold.
    expect(seen.read!.latestStatus()).toBe(arm.latestStatus());
    const actionId = responses[2]!.result.status === "done" ? responses[2]!.result.action_id : undefined;
    expect(seen.read!.action(actionId!)?.tool).toBe("nudge");
    // Only the motion tool's call reached the arm, once.
    expect(arm.sent).toHaveLength(1);
  });
});
