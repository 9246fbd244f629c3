import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import type { CliIo } from "../../../src/commandLine/CliIo.js";
import type { CommandSpec } from "../../../src/commandLine/CommandSpec.js";
import { COMMANDS, runCli } from "../../../src/surfaces/cli/runCli.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { ACTIONS_PAGE } from "../../../src/wire/index.js";
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

function spec(name: string): CommandSpec {
  const found = COMMANDS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no command ${name}`);
  return found;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether a help text names `--flag` as a word of its own. */
const names = (help: string, flag: string): boolean => new RegExp(`(^|[\\s\\[(|])--${flag}(?![\\w-])`, "m").test(help);

describe("one CLI convention for every command", () => {
  it.each(COMMANDS.map((c) => c.name))(
    "`%s --help`: one Usage: line, a Flags: section, every flag it parses listed",
    async (name) => {
      const command = await spec(name).load();
      expect(command.help.startsWith(`Usage: armbridge ${name}`)).toBe(true);
      expect(command.help.match(/^Usage:/gm)).toHaveLength(1);
      expect(command.help).toMatch(/^Flags:$/m);
      expect(command.flags.length).toBeGreaterThan(0);
      for (const flag of command.flags) {
        expect(names(command.help, flag), `${name} --help names --${flag}`).toBe(true);
        // Listed on a flag line of its own, not only mentioned in the prose (mcp lists --bridge, --token and
        // --http with the mode they belong to, above its Flags: section).
        expect(command.help, `${name} --help lists --${flag} on a line of its own`).toMatch(
          new RegExp(`^ +--${flag}(?![\\w-])`, "m"),
        );
      }
    },
  );

  it.each(COMMANDS.map((c) => c.name))("`armbridge %s --help` prints that help on stdout, exit 0", async (name) => {
    const m = io({ tty: false });
    expect(await runCli([name, "--help"], m.io)).toBe(0);
    const help = (await spec(name).load()).help;
    expect(m.out()).toBe(help.endsWith("\n") ? help : `${help}\n`);
    expect(m.err()).toBe("");
  });

  // `halt` is left out on purpose: a flag it does not know still halts (haltAlwaysStops.e2e.test.ts holds that).
  it.each(COMMANDS.map((c) => c.name).filter((name) => name !== "halt"))(
    "`armbridge %s --no-such-flag` is a usage error: exit 2, said on stderr, nothing on stdout",
    async (name) => {
      const m = io({ tty: false });
      expect(await runCli([name, "--no-such-flag"], m.io)).toBe(2);
      expect(m.err()).toMatch(new RegExp(`^armbridge:? ${name}`));
      expect(m.out()).toBe("");
    },
  );

  it("an unknown command is a usage error naming every command", async () => {
    const m = io({ tty: false });
    expect(await runCli(["no-such-command"], m.io)).toBe(2);
    for (const c of COMMANDS) expect(m.err()).toContain(c.name);
  });

  it("the top-level help lists every command with its summary, on stdout", async () => {
    const m = io({ tty: false });
    expect(await runCli(["--help"], m.io)).toBe(0);
    for (const c of COMMANDS) expect(m.out()).toMatch(new RegExp(`^  ${c.name} +${escape(c.summary)}$`, "m"));
    expect(m.err()).toBe("");
  });

  it.each([
    "call",
    "actions",
    "confirm",
    "approvals",
    "approve",
    "decline",
    "recover",
    "tools",
    "halt",
    "release",
    "status",
  ])("`%s` prints records and takes --json", async (name) => {
    expect((await spec(name).load()).flags).toContain("json");
  });

  it("--version prints the package's version", async () => {
    const m = io({ tty: true });
    expect(await runCli(["--version"], m.io)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(m.out()).toBe(`armbridge ${pkg.version}\n`);
  });

  it("`tools` lists every tool with its arguments for a person, and the declarations as JSON otherwise", async () => {
    const human = io({ tty: true });
    expect(await runCli(["tools"], human.io)).toBe(0);
    expect(human.out()).toMatch(/^move_joints \(motion: blocks until it settles\)$/m);
    expect(human.out()).toMatch(/^ {4}positions: \{shoulder_pan\?: number -3\.14\.\.3\.14/m);
    expect(human.out()).toMatch(/^ {4}pose: "home" \| "ready" \| "stow"/m);
    expect(human.out()).toMatch(/^stop \(read or halt: never queued\)$/m);
    // The paragraph every motion tool shares is said once, as a note each of them points to; bounds are rounded for a person.
    expect(human.out().match(/Blocks until the motion ends\./g)).toHaveLength(1);
    expect(human.out().match(/unknown \(do NOT re-run; a person must confirm\)/g)?.length).toBeLessThanOrEqual(2);
    expect(human.out()).toMatch(
      /^move_joints \(motion[^\n]*\n(?: {4}[^\n]*\n)+ {2}Move one or more arm joints[^\n]*\(notes 1, 2\)$/m,
    );
    expect(human.out()).toMatch(/^ {2}1\. Blocks until the motion ends\.$/m);
    expect(human.out()).not.toContain("6.283185307179586");
    expect(human.out()).toContain("roll: number -6.283..6.283");
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
    await bridge.executor.execute([
      { id: "c-1", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.1 } } },
    ]);
    const [r] = await bridge.executor.execute([
      { id: "c-2", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.3 } } },
    ]);
    if (r?.result.status !== "unknown") throw new Error("expected an unknown");
    bridge.executor.confirm(r.result.action_id!, { outcome: "partial", operator: "ana" });
    // `armbridge call` itself, through the API: recorded as the CLI's call.
    const called = io({ tty: false, env });
    expect(
      await runCli(
        ["call", "move_joints", "--args", JSON.stringify({ positions: { [elbow.name]: elbow.home } }), "--id", "c-3"],
        called.io,
      ),
    ).toBe(0);
    // A gated motion an operator approved, which a halt then cut short (written as the executor writes them).
    const command = { actionId: "act_gated", targets: { [elbow.name]: elbow.home + 0.2 }, speed: 0.5 };
    const approval = { approvalId: "apr_1", operator: "bo", at: Date.now(), note: "cell clear" };
    bridge.ledger.recordIntent({
      actionId: "act_gated",
      callId: "c-4",
      tool: "move_joints",
      args: {},
      argsHash: "h4",
      resources: [`joint:${elbow.name}`],
      command,
      approval,
    });
    bridge.ledger.settle("act_gated", {
      state: "halted",
      timedOut: false,
      settledBy: "operator",
      operator: "ana",
      message: "halted",
      evidence: { pose: { [elbow.name]: elbow.home + 0.1 } },
    });
  });
  afterAll(async () => {
    await server.close();
    await bridge.close();
  });

  it("on a terminal: one line per action with who asked, the shared words for its state, and who approved", async () => {
    const m = io({ tty: true, env });
    expect(await runCli(["actions"], m.io)).toBe(0);
    const lines = m.out().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^CREATED +ACTION +TOOL +ASKED BY +STATE +APPROVED BY +SETTLED BY +WHAT HAPPENED$/);
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/act_gated +move_joints +- +halted +bo +operator ana +/);
    expect(lines[2]).toMatch(/act_\S+ +move_joints +cli armbridge call +done +- +completion +Reached the target/);
    expect(lines[3]).toMatch(
      /act_\S+ +move_joints +- +confirmed_partial +- +operator ana +ana confirmed it stopped part-way/,
    );
    expect(lines[4]).toMatch(/act_\S+ +move_joints +- +done +- +completion +Reached the target/);
    expect(() => {
      JSON.parse(m.out());
    }).toThrow();
  });

  it("--json (and any stdout that is not a terminal) prints the API's page unchanged", async () => {
    const page: unknown = await (
      await fetch(`${server.url}/v1/actions`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json();
    for (const [args, tty] of [
      [["actions", "--json"], true],
      [["actions"], false],
    ] as const) {
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

  it("--state stopped lists what the model was told `stopped` (halted and confirmed_partial); halted still names the ledger's state", async () => {
    for (const [word, expected] of [
      ["stopped", ["halted", "confirmed_partial"]],
      ["halted", ["halted"]],
    ] as const) {
      const m = io({ tty: false, env });
      expect(await runCli(["actions", "--state", word], m.io)).toBe(0);
      expect((JSON.parse(m.out()) as { actions: { state: string }[] }).actions.map((a) => a.state)).toEqual(expected);
    }
    const res = await fetch(`${server.url}/v1/actions?state=stopped`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await res.json()) as { actions: { action_id: string }[] }).actions[0]?.action_id).toBe("act_gated");
  });

  it("one approved action in sentences: who asked, who approved, when and their note; its JSON carries the approval", async () => {
    const m = io({ tty: true, env });
    expect(await runCli(["actions", "act_gated"], m.io)).toBe(0);
    expect(m.out()).toMatch(/^ {2}Approved by bo at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: cell clear$/m);
    const j = io({ tty: false, env });
    expect(await runCli(["actions", "act_gated"], j.io)).toBe(0);
    expect(JSON.parse(j.out())).toMatchObject({
      approval: { id: "apr_1", operator: "bo", note: "cell clear" },
      client: null,
    });
    const cli = bridge.ledger.list({ limit: 10 }).find((r) => r.callId === "c-3");
    expect(cli?.client).toEqual({ kind: "cli", name: "armbridge call" });
  });

  it("one action in sentences, with what the model is told", async () => {
    const id = bridge.ledger.list({ state: "confirmed_partial", limit: 1 })[0]!.actionId;
    const m = io({ tty: true, env });
    expect(await runCli(["actions", id], m.io)).toBe(0);
    expect(m.out()).toContain(`${id}  move_joints  confirmed_partial`);
    expect(m.out()).toMatch(/^ {2}The model is told: An operator \(ana\) confirmed/m);
  });
});
