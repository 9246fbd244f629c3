import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { FakeArm, type FakeArmOptions } from "./FakeArm.js";
import { testConfig } from "./testConfig.js";

export interface Harness {
  readonly config: ArmConfig;
  readonly arm: FakeArm;
  readonly ledger: IntentLedger;
  readonly executor: Executor;
  close(): Promise<void>;
}

/** An executor on a FakeArm and an in-memory ledger; close() in afterEach. */
export async function createHarness(
  options: { arm?: FakeArmOptions; config?: ArmConfig; ledgerPath?: string } = {},
): Promise<Harness> {
  const config = options.config ?? testConfig();
  const arm = new FakeArm(config, options.arm);
  await arm.open();
  const ledger = IntentLedger.open(options.ledgerPath ?? ":memory:");
  const executor = composeExecutor({ config, registry: createDefaultTools(config), transport: arm, ledger });
  return {
    config,
    arm,
    ledger,
    executor,
    close: async () => {
      executor.close();
      await arm.close();
      ledger.close();
    },
  };
}
