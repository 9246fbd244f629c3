import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";

/**
 * What each distro's launch parser accepts, written down from the sources:
 *
 *   ros2/launch     humble @ f31c1ff13fcbed3653d1a0e26438cb739e96d751
 *                   jazzy  @ 09403fcebedb68dd259e9ab6b35bd8712b6596ec
 *   ros2/launch_ros humble @ 25a207cac3d7546fa7bfa8d3b078fc13f0e82479
 *                   jazzy  @ 62c56e53e86812023697fe330c83d327f54e7b18
 *
 * XML: each action's `parse()` reads its attributes with `entity.get_attr`
 * (launch/actions/execute_process.py, declare_launch_argument.py, action.py
 * for `if`/`unless`, frontend/parser.py for the root), and launch_xml's
 * Entity.assert_entity_completely_parsed raises "Unexpected attribute(s)" for
 * any attribute nobody read: an attribute missing from a distro's list makes
 * the whole launch file fail there. Humble's <executable> reads no
 * `sigterm_timeout`, `sigkill_timeout`, `emulate_tty`, `on_exit` or
 * `respawn_max_retries`.
 *
 * Python: the keyword arguments of each action's `__init__` (with those of the
 * classes it passes `**kwargs` to: ExecuteProcess → ExecuteLocal → Action;
 * Node → ExecuteProcess). A keyword no class takes is a TypeError at launch.
 */
type Distro = "humble" | "jazzy";
const DISTROS: readonly Distro[] = ["humble", "jazzy"];

const ACTION = ["condition"];
const EXECUTE_LOCAL_HUMBLE = [
  "shell",
  "sigterm_timeout",
  "sigkill_timeout",
  "emulate_tty",
  "output",
  "output_format",
  "cached_output",
  "log_cmd",
  "on_exit",
  "respawn",
  "respawn_delay",
];
const EXECUTE_PROCESS = ["cmd", "prefix", "name", "cwd", "env", "additional_env"];
const NODE = [
  "executable",
  "package",
  "name",
  "namespace",
  "exec_name",
  "parameters",
  "remappings",
  "ros_arguments",
  "arguments",
];

const PYTHON_KWARGS: Record<Distro, Record<string, readonly string[]>> = {
  humble: {
    ExecuteProcess: [...EXECUTE_PROCESS, ...EXECUTE_LOCAL_HUMBLE, ...ACTION],
    Node: [...NODE, ...EXECUTE_PROCESS, ...EXECUTE_LOCAL_HUMBLE, ...ACTION],
    DeclareLaunchArgument: ["name", "default_value", "description", "choices", ...ACTION],
    TimerAction: ["period", "actions", "cancel_on_shutdown", ...ACTION],
    RegisterEventHandler: ["event_handler", ...ACTION],
    OnProcessExit: ["target_action", "on_exit"],
    IncludeLaunchDescription: ["launch_description_source", "launch_arguments", ...ACTION],
    PythonLaunchDescriptionSource: ["launch_file_path"],
  },
  jazzy: {
    ExecuteProcess: [...EXECUTE_PROCESS, ...EXECUTE_LOCAL_HUMBLE, "respawn_max_retries", ...ACTION],
    Node: [...NODE, ...EXECUTE_PROCESS, ...EXECUTE_LOCAL_HUMBLE, "respawn_max_retries", ...ACTION],
    DeclareLaunchArgument: ["name", "default_value", "description", "choices", ...ACTION],
    TimerAction: ["period", "actions", "cancel_on_shutdown", ...ACTION],
    RegisterEventHandler: ["event_handler", ...ACTION],
    OnProcessExit: ["target_action", "on_exit"],
    IncludeLaunchDescription: ["launch_description_source", "launch_arguments", ...ACTION],
    PythonLaunchDescriptionSource: ["launch_file_path"],
  },
};

const XML_ATTRIBUTES: Record<Distro, Record<string, readonly string[]>> = {
  humble: {
    launch: ["deprecated"],
    arg: ["name", "default", "description", "if", "unless"],
    executable: ["cmd", "cwd", "name", "launch-prefix", "output", "respawn", "respawn_delay", "shell", "if", "unless"],
  },
  jazzy: {
    launch: ["deprecated"],
    arg: ["name", "default", "description", "if", "unless"],
    executable: [
      "cmd",
      "cwd",
      "name",
      "on_exit",
      "launch-prefix",
      "output",
      "respawn",
      "respawn_max_retries",
      "respawn_delay",
      "sigkill_timeout",
      "sigterm_timeout",
      "shell",
      "emulate_tty",
      "if",
      "unless",
    ],
  },
};

/** `$(name ...)` substitutions exposed by each distro (expose_substitution in launch/substitutions). */
const XML_SUBSTITUTIONS: Record<Distro, readonly string[]> = {
  humble: ["anon", "not", "and", "or", "command", "env", "find-exec", "var", "eval", "filename", "dirname"],
  jazzy: [
    "anon",
    "not",
    "and",
    "or",
    "any",
    "all",
    "command",
    "env",
    "equals",
    "file-content",
    "find-exec",
    "if",
    "var",
    "launch_log_dir",
    "log_dir",
    "not-equals",
    "eval",
    "filename",
    "dirname",
  ],
};

const launchDir = join(packageRoot(), "launch");
const files = readdirSync(launchDir);

/** Calls `Name(...)` of the given names, with their top-level keyword argument names. */
function pythonCalls(source: string, names: readonly string[]): Array<{ name: string; kwargs: string[] }> {
  const code = source.replace(/"""[\s\S]*?"""/g, "").replace(/#[^\n]*/g, "");
  const calls: Array<{ name: string; kwargs: string[] }> = [];
  const re = /\b([A-Z]\w*)\(/g;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const name = m[1] ?? "";
    if (!names.includes(name)) continue;
    let depth = 0;
    let arg = "";
    const args: string[] = [];
    let quote: string | undefined;
    for (let i = m.index + name.length; i < code.length; i++) {
      const c = code[i] ?? "";
      if (quote) {
        if (c === quote) quote = undefined;
        if (depth === 1) arg += c;
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      if ("([{".includes(c)) depth++;
      if (")]}".includes(c)) depth--;
      if (depth === 0) {
        args.push(arg);
        break;
      }
      if (depth === 1 && c === ",") {
        args.push(arg);
        arg = "";
      } else if (!(depth === 1 && c === "(" && arg === "")) arg += c;
    }
    const kwargs = args.map((a) => /^\s*(\w+)\s*=(?!=)/.exec(a)?.[1]).filter((k): k is string => k !== undefined);
    calls.push({ name, kwargs });
  }
  return calls;
}

/** Names imported from launch / launch_ros modules. */
function launchImports(source: string): string[] {
  const out: string[] = [];
  const re = /from\s+(launch[\w.]*)\s+import\s+(\([^)]*\)|[^\n]+)/g;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    for (const n of (m[2] ?? "").replace(/[()]/g, "").split(",")) if (n.trim()) out.push(n.trim());
  }
  return out;
}

function xmlTags(source: string): Array<{ tag: string; attributes: string[]; values: string[] }> {
  const body = source.replace(/<!--[\s\S]*?-->/g, "");
  const tags: Array<{ tag: string; attributes: string[]; values: string[] }> = [];
  const re = /<([A-Za-z][\w-]*)((?:\s+[\w-]+\s*=\s*"[^"]*")*)\s*\/?>/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const attrs = [...(m[2] ?? "").matchAll(/([\w-]+)\s*=\s*"([^"]*)"/g)];
    tags.push({ tag: m[1] ?? "", attributes: attrs.map((a) => a[1] ?? ""), values: attrs.map((a) => a[2] ?? "") });
  }
  return tags;
}

describe("launch files parse on Humble and Jazzy", () => {
  it("there are launch files to check", () => {
    expect(files.filter((f) => f.endsWith(".launch.py")).length).toBeGreaterThanOrEqual(3);
    expect(files.filter((f) => f.endsWith(".launch.xml")).length).toBeGreaterThanOrEqual(1);
  });

  describe.each(DISTROS)("%s", (distro) => {
    it.each(files.filter((f) => f.endsWith(".launch.py")))("%s: every action and keyword argument exists", (file) => {
      const source = readFileSync(join(launchDir, file), "utf8");
      const known = PYTHON_KWARGS[distro];
      const actions = Object.keys(known);
      // Every action-like name imported from launch must be one whose arguments we have listed.
      const imported = launchImports(source).filter(
        (n) =>
          /^[A-Z]/.test(n) &&
          !/Substitution$|^LaunchConfiguration$|^LaunchDescription$|^Command$|^ParameterValue$|^FindPackageShare$/.test(
            n,
          ),
      );
      expect(imported.filter((n) => !actions.includes(n))).toEqual([]);
      const calls = pythonCalls(source, actions);
      expect(calls.length).toBeGreaterThan(0);
      const bad = calls.flatMap((c) =>
        c.kwargs.filter((k) => !(known[c.name] ?? []).includes(k)).map((k) => `${c.name}(${k}=)`),
      );
      expect(bad).toEqual([]);
    });

    it.each(files.filter((f) => f.endsWith(".launch.xml")))(
      "%s: every tag, attribute and substitution is read by the parser",
      (file) => {
        const tags = xmlTags(readFileSync(join(launchDir, file), "utf8"));
        expect(tags.map((t) => t.tag)).toContain("executable");
        const accepted = XML_ATTRIBUTES[distro];
        const bad: string[] = [];
        for (const t of tags) {
          const allowed = accepted[t.tag];
          if (!allowed) bad.push(`<${t.tag}>`);
          else for (const a of t.attributes) if (!allowed.includes(a)) bad.push(`<${t.tag} ${a}>`);
          for (const v of t.values)
            for (const s of v.matchAll(/\$\(([\w-]+)/g))
              if (!XML_SUBSTITUTIONS[distro].includes(s[1] ?? "")) bad.push(`$(${s[1]})`);
        }
        expect(bad).toEqual([]);
      },
    );
  });

  it("the armbridge command is one executable; a runner such as npx goes in launch_prefix, which launch splits (shlex)", () => {
    // ros2/launch humble @ f31c1ff1 and jazzy @ 09403fce, launch/descriptions/executable.py: `cmd = shlex.split(
    // perform_substitutions(context, self.__prefix)) + cmd`, while each cmd element (Python) or each
    // substitution in cmd (XML, ExecuteProcess._parse_cmdline) stays one argv element.
    const py = readFileSync(join(launchDir, "armbridge.launch.py"), "utf8");
    const xml = readFileSync(join(launchDir, "armbridge.launch.xml"), "utf8");
    for (const source of [py, xml]) {
      expect(source).not.toMatch(/e\.g\. '?npx armbridge/);
      expect(source).toMatch(/launch_prefix/);
    }
    expect(py).toMatch(/prefix=LaunchConfiguration\("launch_prefix"\)/);
    expect(xml).toMatch(/launch-prefix="\$\(var launch_prefix\)"/);
  });

  it("the checker catches what Humble refuses: sigterm_timeout on <executable>", () => {
    const tags = xmlTags('<launch><executable cmd="x" sigterm_timeout="10"/></launch>');
    const humble = tags.flatMap((t) => t.attributes.filter((a) => !(XML_ATTRIBUTES.humble[t.tag] ?? []).includes(a)));
    const jazzy = tags.flatMap((t) => t.attributes.filter((a) => !(XML_ATTRIBUTES.jazzy[t.tag] ?? []).includes(a)));
    expect(humble).toEqual(["sigterm_timeout"]);
    expect(jazzy).toEqual([]);
    expect(
      pythonCalls("ExecuteProcess(cmd=['a', f(x, y=1)], sigterm_timeout='10', nme='a')", ["ExecuteProcess"]),
    ).toEqual([{ name: "ExecuteProcess", kwargs: ["cmd", "sigterm_timeout", "nme"] }]);
  });
});
