/**
 * npm run crashloop -- --kills 200 --seed 7 — the crash loop at any length
 * (bench/crashloop/runCrashLoop.ts): `armbridge serve` SIGKILLed at seeded
 * moments on one long-lived firmware-sim with seeded faults, restarted on the
 * same data dir, judged by the effects log and the ledger read back through
 * the API. Prints the figures (kills, calls, each invariant's count, restart
 * → ready p50/p95/max); exit code 1 when an invariant was broken. The work
 * folder (effects log, both logs, ledger) is kept unless --clean.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatCrashLoopReport, violationCount } from "./crashloop/formatCrashLoopReport.js";
import { runCrashLoop } from "./crashloop/runCrashLoop.js";
import { killLiveServeChildren } from "./crashloop/ServeChild.js";

const USAGE = `usage: npm run crashloop -- [--kills N] [--seed N] [--watchdog-ms N] [--clean]

  --kills N        SIGKILLs of the bridge (default 200)
  --seed N         seeds firmware-sim's faults and the harness's choices (default: random, printed)
  --watchdog-ms N  firmware-sim's host-silence watchdog (default 3000)
  --clean          remove the work folder afterwards (default: keep it for reading)
`;

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      options: {
        kills: { type: "string" },
        seed: { type: "string" },
        "watchdog-ms": { type: "string" },
        clean: { type: "boolean" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const integer = (text: string | undefined, fallback: number, name: string): number => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new Error(`--${name} must be a non-negative integer (got ${JSON.stringify(text)})`);
    return Number(text);
  };
  let kills: number;
  let seed: number;
  let watchdogMs: number;
  try {
    kills = integer(values.kills, 200, "kills");
    seed = integer(values.seed, Math.floor(Math.random() * 0xffffffff), "seed") >>> 0;
    watchdogMs = integer(values["watchdog-ms"], 3000, "watchdog-ms");
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), `armbridge-crashloop-${seed}-`));
  process.once("exit", killLiveServeChildren);
  // A signal's default action skips "exit" handlers; exiting runs them, so no bridge or simulator outlives the script.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => process.exit(130));
  console.log(
    `crash loop: ${kills} kills, seed ${seed} (reproduce: npm run crashloop -- --kills ${kills} --seed ${seed}), ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}`,
  );
  const report = await runCrashLoop({ kills, seed, dir, watchdogMs, progress: (line) => console.log(line) });
  console.log("");
  console.log(formatCrashLoopReport(report));
  if (values.clean) rmSync(dir, { recursive: true, force: true });
  return violationCount(report) === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
