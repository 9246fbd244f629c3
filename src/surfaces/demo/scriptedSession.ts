import { join, relative } from "node:path";
import { asArmbridgeError } from "../../errors.js";
import { RemoteBridge } from "../attach/RemoteBridge.js";
import { agentClient } from "../gemini/agentClient.js";
import { GeminiModelClient } from "../gemini/GeminiModelClient.js";
import type { ModelClient } from "../gemini/ModelClient.js";
import { ReplayModelClient } from "../gemini/ReplayModelClient.js";
import { runAgent } from "../gemini/runAgent.js";
import type { Serving } from "../runtime/startServing.js";
import { consoleUrlOf, type DemoOptions, type DemoRun } from "./DemoRun.js";
import { SessionNarrator } from "./SessionNarrator.js";

/** The scripted (or Gemini) session: a client of the serve above, over its HTTP API, as `armbridge agent --bridge` is. */
export async function runScriptedSession(demo: DemoRun, serving: Serving): Promise<void> {
  const { options, say } = demo;
  const { bridge, http } = serving;
  const narrator = new SessionNarrator({ write: say, consoleUrl: consoleUrlOf(serving, options) });
  demo.scope.add(
    "events",
    bridge.onEvent((e) => {
      if (e.type === "action_resolved") narrator.actionResolved(e.row);
    }),
  );
  const { model, what } = chooseModel(options, demo.io.env);
  say(what);
  const remote = await RemoteBridge.connect({
    url: http.url,
    token: options.token,
    client: agentClient({ model: model.model }),
    logger: demo.logger,
  });
  demo.scope.add("remote", () => remote.close());
  say(
    `  attached   to ${remote.url} as ${remote.client.kind} ${remote.client.name} (session ${remote.client.session ?? "-"}): its calls, progress and outcomes are in the console above`,
  );
  say();
  try {
    const result = await runAgent({
      bridge: remote,
      model,
      instruction: options.instruction,
      transcriptPath: join(options.dataDir, "transcript.jsonl"),
      onProgress: narrator.onAgentEvent,
      signal: demo.shutdown.signal,
    });
    for (const note of result.notes) say(`  note: ${note}`);
  } catch (error) {
    const e = asArmbridgeError(error);
    say(`The session failed: ${e.message} [${e.code}]`);
    demo.exitCode = 1;
  }
  say();
  narrator.summary((actionId) => bridge.actions.get(actionId)?.state === "unknown");
}

function chooseModel(options: DemoOptions, env: NodeJS.ProcessEnv): { model: ModelClient; what: string } {
  const key = env.GEMINI_API_KEY;
  if (options.model?.startsWith("replay:")) {
    const file = options.model.slice("replay:".length);
    return { model: ReplayModelClient.fromFile(file), what: `Scripted session ${file} (replay model).` };
  }
  if (key) {
    const model = new GeminiModelClient({ apiKey: key, model: options.model, baseUrl: options.baseUrl });
    return { model, what: `Gemini session with ${model.model}. Instruction: ${options.instruction}` };
  }
  return {
    model: ReplayModelClient.fromFile(options.session),
    what: `Scripted session ${relative(process.cwd(), options.session)} through the agent loop with the replay model (set GEMINI_API_KEY to drive it with Gemini).`,
  };
}
