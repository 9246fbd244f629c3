/**
 * npm run bench:live — a Live agent run against the local scripted Live
 * server (test/fixtures/gemini), which loses the connection in the middle of
 * each of 20 motions in a row (alternately goAway then a 1001 close, and a
 * socket dropped with no close frame) and, once resumed, asks for the same
 * motion again under a new id, as the Live API's resumed state makes a
 * model do. The arm is firmware-sim over TCP, in this process.
 *
 * Prints, per round and over all rounds: time from the old connection's end
 * (as the client saw it) to setupComplete on the resumed one, p50/p95/max,
 * by how the connection ended; and the ground truth from the effects log —
 * motions started, motions started more than once, repeats joined.
 *
 * Prints figures; asserts nothing. BENCH_ROUNDS (default 3) sets the rounds,
 * BENCH_RECONNECTS (default 20) the reconnects per round.
 */
import { join } from "node:path";
import type { ExecutorEvent } from "../src/executor/ExecutorEvent.js";
import { createGoogleGenAI } from "../src/surfaces/gemini/GeminiModelClient.js";
import type { ModelLinkEvent } from "../src/surfaces/gemini/ModelLinkEvent.js";
import { runLiveAgent } from "../src/surfaces/gemini/runLiveAgent.js";
import { quantile } from "../firmware-sim/effectsJudge.js";
import { reconnectScenario, type CloseStyle } from "../test/fixtures/gemini/reconnectScenario.js";
import { ScriptedGeminiServer } from "../test/fixtures/gemini/ScriptedGeminiServer.js";
import { motionIntervals, startSimBridge } from "../test/fixtures/gemini/simBridge.js";
import { formatTable, ms } from "./seed/table.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECONNECTS = Number(process.env.BENCH_RECONNECTS ?? 20);

interface Round {
  readonly ended: string;
  readonly wallMs: number;
  readonly reconnectMs: { readonly style: CloseStyle; readonly ms: number }[];
  readonly motions: number;
  readonly startedTwice: number;
  readonly repeatsInLedger: number;
  readonly joined: number;
  readonly reached: number;
}

async function round(): Promise<Round> {
  const server = await ScriptedGeminiServer.start();
  const sb = await startSimBridge();
  const waiters: { id: string; resolve: () => void }[] = [];
  const off = sb.bridge.onEvent((e: ExecutorEvent) => {
    if (e.type !== "started") return;
    for (const w of waiters.splice(0))
      if (w.id === e.callId) w.resolve();
      else waiters.push(w);
  });
  const style = (i: number): CloseStyle => (i % 2 === 0 ? "go_away" : "drop");
  const scenario = reconnectScenario({
    reconnects: RECONNECTS,
    started: (id) => new Promise((resolve) => waiters.push({ id, resolve })),
    closeStyle: style,
  });
  server.liveScript = scenario.script;
  const reconnectMs: { style: CloseStyle; ms: number }[] = [];
  const t0 = performance.now();
  try {
    const result = await runLiveAgent({
      bridge: sb.bridge,
      ai: createGoogleGenAI({ apiKey: "bench", baseUrl: server.baseUrl, apiVersion: "v1beta" }),
      model: "bench-live",
      instruction: "pan back and forth",
      deadlineMs: 600_000,
      maxTurns: 4 * RECONNECTS + 4,
      transcriptPath: join(sb.dir, "live.jsonl"),
      onProgress: (_line, event) => {
        if (event.type !== "link") return;
        const e: ModelLinkEvent = event.event;
        if (e.kind === "reconnected") reconnectMs.push({ style: style(reconnectMs.length), ms: e.durationMs });
      },
    });
    const wallMs = performance.now() - t0;
    const effects = sb.effects();
    const intervals = motionIntervals(effects);
    const firsts = Array.from({ length: RECONNECTS }, (_, i) => sb.bridge.ledger.findByCallId(scenario.firstId(i)));
    return {
      ended: result.ended,
      wallMs,
      reconnectMs,
      motions: effects.filter((e) => e.event === "motion_start").length,
      startedTwice: [...intervals.values()].filter((m) => m.starts > 1).length,
      repeatsInLedger: Array.from({ length: RECONNECTS }, (_, i) =>
        sb.bridge.ledger.findByCallId(scenario.repeatId(i)),
      ).filter((r) => r !== undefined).length,
      joined: result.metrics.joined_repeats,
      reached: firsts.filter(
        (r) =>
          r !== undefined &&
          effects.some((e) => e.event === "motion_end" && e.action_id === r.actionId && e.outcome === "reached"),
      ).length,
    };
  } finally {
    off();
    await server.close();
    await sb.close();
  }
}

function summary(label: string, samples: readonly number[]): string[] {
  return [
    label,
    String(samples.length),
    ms(quantile(samples, 0.5)),
    ms(quantile(samples, 0.95)),
    ms(Math.max(...samples)),
  ];
}

async function main(): Promise<void> {
  console.log(
    `bench:live — ${ROUNDS} round(s) of ${RECONNECTS} reconnects, each mid-motion; Node ${process.version}, ${process.platform} ${process.arch}`,
  );
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const one = await round();
    rounds.push(one);
    const all = one.reconnectMs.map((x) => x.ms);
    console.log(
      `round ${r + 1}: ended ${one.ended} in ${ms(one.wallMs)}; close → resumed p50 ${ms(quantile(all, 0.5))}, max ${ms(Math.max(...all))}; ` +
        `motions started ${one.motions}/${RECONNECTS}, started twice ${one.startedTwice}, reached ${one.reached}/${RECONNECTS}, repeats joined ${one.joined}/${RECONNECTS}, repeats in the ledger ${one.repeatsInLedger}`,
    );
  }
  const every = rounds.flatMap((r) => r.reconnectMs);
  console.log("");
  console.log("Time from the old connection's end to setupComplete on the resumed one (client clock):");
  console.log(
    formatTable([
      ["closed by", "n", "p50", "p95", "max"],
      summary(
        "goAway, then 1001",
        every.filter((x) => x.style === "go_away").map((x) => x.ms),
      ),
      summary(
        "dropped (1006)",
        every.filter((x) => x.style === "drop").map((x) => x.ms),
      ),
      summary(
        "all",
        every.map((x) => x.ms),
      ),
    ]),
  );
  const bad = rounds.reduce(
    (n, r) => n + r.startedTwice + r.repeatsInLedger + (RECONNECTS - r.reached) + (r.ended === "answered" ? 0 : 1),
    0,
  );
  console.log("");
  console.log(
    `Ground truth over ${ROUNDS * RECONNECTS} motions: ${bad === 0 ? "every motion started once and reached its target, every repeat joined, every run answered" : `${bad} problem(s) — see the rounds above`}.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
