import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { BRIDGE_FLAG_NAMES } from "../../../src/surfaces/cli/bridgeFlags.js";
import type { CliIo } from "../../../src/surfaces/cli/CliIo.js";
import { DYNAMIC, LOCAL, runCli } from "../../../src/surfaces/cli/runCli.js";
import { AGENT_USAGE } from "../../../src/surfaces/gemini/agentCommand.js";
import { AGENT_FLAGS } from "../../../src/surfaces/gemini/parseAgentArgs.js";
import { DEMO_FLAGS, DEMO_HELP } from "../../../src/surfaces/demo/demoCommand.js";
import { MCP_FLAG_NAMES, MCP_HELP } from "../../../src/surfaces/mcp/mcpCommand.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { ACTIONS_PAGE } from "../../../src/surfaces/http/wire/index.js";
import { testConfig } from "../../support/testConfig.js";
import { FakeArm } from "../http/FakeArm.js";

/** An in-process io whose stdout says it is (or is not) a terminal. */
function io(options: { tty: boolean; env?: NodeJS.ProcessEnv }): { io: CliIo; out: () => string; err: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: options.tty });
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  return { io: { stdout, stderr, env: options.env ?? {} }, out: () => out, err: () => err };
}

/** Whether a help text names `--flag` as a word of its own. */
const names = (help: string, flag: string): boolean => new RegExp(`(^|[\\s\\[(|])--${flag}(?![\\w-])`, "m").test(help);

describe("one CLI convention for every command", () => {
  it.each(Object.keys(LOCAL))("`%s --help`: one Usage: line, a Flags: section, every flag it parses named", async (name) => {
    const command = await LOCAL[name]!.load();
    expect(command.help.startsWith(`Usage: armbridge ${name}`)).toBe(true);
    expect(command.help.match(/^Usage:/gm)).toHaveLength(1);
    expect(command.help).toMatch(/^Flags:$/m);
    expect(command.flags.length).toBeGreaterThan(0);
    for (const flag of command.flags) {
      expect(names(command.help, flag), `${name} --help names --${flag}`).toBe(true);
      // Listed in the Flags: section itself, not only mentioned in the prose.
      expect(command.help.slice(command.help.search(/^Flags:$/m)), `${name} --help lists --${flag} under Flags:`).toMatch(new RegExp(`^ +--${flag}(?![\\w-])`, "m"));
    }
  });

  it.each([
    ["agent", AGENT_USAGE, [...Object.keys(AGENT_FLAGS), ...BRIDGE_FLAG_NAMES]],
    ["demo", DEMO_HELP, [...Object.keys(DEMO_FLAGS), ...BRIDGE_FLAG_NAMES]],
    ["mcp", MCP_HELP, [...MCP_FLAG_NAMES, ...BRIDGE_FLAG_NAMES]],
  ] as const)("`%s --help` follows it too", (name, help, flags) => {
    expect(Object.keys(DYNAMIC)).toContain(name);
    expect(help.startsWith(`Usage: armbridge ${name}`)).toBe(true);
    expect(help).toMatch(/^Flags:$/m);
    for (const flag of flags) expect(names(help, flag), `${name} --help names --${flag}`).toBe(true);
  });

  it.each(["call", "actions", "confirm", "approvals", "approve", "decline", "recover", "tools", "halt", "release", "status"])("`%s` prints records and takes --json", async (name) => {
    expect((await LOCAL[name]!.load()).flags).toContain("json");
  });

  it("--version prints the package's version", async () => {
    const m = io({ tty: true });
    expect(await runCli(["--version"], m.io)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "..", "package.json"), "utf8")) as { version: string };
    expect(m.out()).toBe(`armbridge ${pkg.version}\n`);
  });

  it("`tools` lists every tool with its arguments for a person, and the declarations as JSON otherwise", async () => {
    const human = io({ tty: true });
    expect(await runCli(["tools"], human.io)).toBe(0);
    expect(human.out()).toMatch(/^move_joints \(motion: blocks until it settles\)$/m);
    expect(human.out()).toMatch(/^ {4}positions: \{shoulder_pan\?: number -3\.14\.\.3\.14/m);
    expect(human.out()).toMatch(/^ {4}pose: "home" \| "ready" \| "stow"/m);
    expect(human.out()).toMatch(/^stop \(read or halt: never queued\)$/m);
    const piped = io({ tty: false });
    expect(await runCli(["tools"], piped.io)).toBe(0);
    const json = JSON.parse(piped.out()) as { functionDeclarations: { name: string }[] };
    expect(json.functionDeclarations.map((d) => d.name)).toContain("move_to_named_pose");
  });
});

describe("`armbridge actions`: a table for a person, today's JSON for a machine", () => {
  const TOKEN = "cli-conventions-token-0123456789";
  let bridge: Bridge;
  let server: RunningHttpServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const config = testConfig();
    const arm = new FakeArm(config);
    bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
    server = await startHttpServer(bridge, { token: TOKEN, port: 0 });
    env = { ARMBRIDGE_URL: server.url, ARMBRIDGE_TOKEN: TOKEN };
    const elbow = config.arm.joints[2]!;
    arm.nextEndings.push("reach", "stall_after_moving");
    await bridge.executor.execute([{ id: "c-1", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.1 } } }]);
    const [r] = await bridge.executor.execute([{ id: "c-2", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.3 } } }]);
    if (r?.result.status !== "unknown") throw new Error("expected an unknown");
    bridge.executor.confirm(r.result.action_id!, { outcome: "partial", operator: "ana" });
  });
  afterAll(async () => {
    await server.close();
    await bridge.close();
  });

  it("on a terminal: one line per action with the shared words for its state", async () => {
    const m = io({ tty: true, env });
    expect(await runCli(["actions"], m.io)).toBe(0);
    const lines = m.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^CREATED +ACTION +TOOL +STATE +SETTLED BY +WHAT HAPPENED$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/act_\S+ +move_joints +confirmed_partial +operator ana +ana confirmed it stopped part-way/);
    expect(lines[2]).toMatch(/act_\S+ +move_joints +done +completion +Reached the target/);
    expect(() => {
      JSON.parse(m.out());
    }).toThrow();
  });

  it("--json (and any stdout that is not a terminal) prints the API's page unchanged", async () => {
    const page: unknown = await (await fetch(`${server.url}/v1/actions`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    for (const [args, tty] of [[["actions", "--json"], true], [["actions"], false]] as const) {
      const m = io({ tty, env });
      expect(await runCli(args, m.io)).toBe(0);
      const printed: unknown = JSON.parse(m.out());
      expect(ACTIONS_PAGE.safeParse(printed).success).toBe(true);
      expect(printed).toEqual(page);
    }
  });

  it("--state takes the shared word and the ledger's own name alike", async () => {
    for (const word of ["confirmed_partial", "confirmed_reached", "confirmed_done"]) {
      const m = io({ tty: false, env });
      expect(await runCli(["actions", "--state", word], m.io)).toBe(0);
      const printed = JSON.parse(m.out()) as { actions: { state: string }[] };
      const states = printed.actions.map((a) => a.state);
      expect(states).toEqual(word === "confirmed_partial" ? ["confirmed_partial"] : []);
    }
  });

  it("one action in sentences, with what the model is told", async () => {
    const id = bridge.ledger.list({ limit: 1 })[0]!.actionId;
    const m = io({ tty: true, env });
    expect(await runCli(["actions", id], m.io)).toBe(0);
    expect(m.out()).toContain(`${id}  move_joints  confirmed_partial`);
    expect(m.out()).toMatch(/^ {2}The model is told: An operator \(ana\) confirmed/m);
  });
});
