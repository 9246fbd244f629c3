#!/usr/bin/env node
import { asArmbridgeError } from "../src/errors.js";
import { STOP_SIGNALS } from "../src/commandLine/stopSignals.js";
import { parseSimArgs, USAGE } from "./simOptions.js";
import { startSimulator } from "./startSimulator.js";
import { startBusSimulator } from "./bus/startBusSimulator.js";

/** armbridge-sim: the simulated arm controller as a process. Ready line on stdout, logs on stderr. */
async function main(): Promise<number> {
  const parsed = parseSimArgs(process.argv.slice(2));
  if (parsed.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`armbridge-sim: ${parsed.message}\n\n${USAGE}`);
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
  let sim;
  try {
    const bus = parsed.options.bus;
    sim =
      bus === undefined
        ? await startSimulator({ ...parsed.options, onFatal: (reason) => fatal(reason) })
        : await startBusSimulator({ ...parsed.options, bus, onFatal: (reason) => fatal(reason) });
  } catch (error) {
    const e = asArmbridgeError(error);
    process.stderr.write(`armbridge-sim: ${e.message}\n`);
    return e.code === "ARMB_ERR_CONFIG_READ" || e.code === "ARMB_ERR_CONFIG_INVALID" ? 2 : 1;
  }
  process.stdout.write(
    JSON.stringify({
      event: "ready",
      link: sim.link,
      ...("camera" in sim && sim.camera !== undefined ? { camera: sim.camera } : {}),
    }) + "\n",
  );
  const why = await Promise.race([signalled, dead.then((reason) => `link lost: ${reason}`)]);
  await sim.close();
  if (why.startsWith("link lost")) {
    process.stderr.write(`armbridge-sim: ${why}\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`armbridge-sim: ${String(error)}\n`);
    process.exit(1);
  },
);
