import { asArmbridgeError } from "../src/errors.js";
import type { CliIo } from "../src/commandLine/CliIo.js";
import type { CommandSpec } from "../src/commandLine/CommandSpec.js";
import { STOP_SIGNALS } from "../src/commandLine/stopSignals.js";
import { parseSimArgs, SIM_FLAGS, USAGE, type SimOptions } from "./simOptions.js";
import { startSimulator } from "./startSimulator.js";
import { startBusSimulator } from "./bus/startBusSimulator.js";

/** `armbridge-sim`, the one command of its bin. */
export const SIM_COMMAND: CommandSpec = {
  name: "armbridge-sim",
  summary: "the simulated arm controller (serial protocol v1, or a servo bus) as a process",
  load: async () => Promise.resolve({ help: USAGE, flags: Object.keys(SIM_FLAGS), run: runSimulator }),
};

/** Reads the flags, starts the simulator, prints the ready line, and runs until a stop signal or a lost link. */
async function runSimulator(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseSimArgs(argv);
  if (parsed.kind === "help") {
    io.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === "error") {
    io.stderr.write(`armbridge-sim: ${parsed.message}\n\n${USAGE}`);
    return 2;
  }
  // SIGHUP too (a closed terminal): the default action would end this process
  // without stopping socat, which would then hold the PTY pair forever. Listened
  // for before the start and the ready line: a signal sent the moment the ready
  // line is read would otherwise meet the default action.
  const signalled = new Promise<string>((resolve) => {
    for (const signal of STOP_SIGNALS) process.once(signal, () => resolve(signal));
  });
  let fatal: (reason: string) => void = () => undefined;
  const dead = new Promise<string>((resolve) => (fatal = resolve));
  let sim: Awaited<ReturnType<typeof startSimulatorFor>>;
  try {
    sim = await startSimulatorFor(parsed.options, (reason) => fatal(reason));
  } catch (error) {
    const e = asArmbridgeError(error);
    io.stderr.write(`armbridge-sim: ${e.message}\n`);
    return e.code === "ARMB_ERR_CONFIG_READ" || e.code === "ARMB_ERR_CONFIG_INVALID" ? 2 : 1;
  }
  io.stdout.write(
    JSON.stringify({
      event: "ready",
      link: sim.link,
      ...("camera" in sim && sim.camera !== undefined ? { camera: sim.camera } : {}),
    }) + "\n",
  );
  const why = await Promise.race([signalled, dead.then((reason) => `link lost: ${reason}`)]);
  await sim.close();
  if (why.startsWith("link lost")) {
    io.stderr.write(`armbridge-sim: ${why}\n`);
    return 1;
  }
  return 0;
}

/** The serial-protocol simulator, or with --bus a servo bus. */
async function startSimulatorFor(options: SimOptions, onFatal: (reason: string) => void) {
  const bus = options.bus;
  return bus === undefined ? startSimulator({ ...options, onFatal }) : startBusSimulator({ ...options, bus, onFatal });
}
