import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The floors are checked by `npm run lint` (its lint:floors step runs
// dependency-cruiser with .dependency-cruiser.mjs). These tests run that same
// command: on a scratch tree built to break every rule once (each rule must
// fire, and nothing else may), on the real tree (nothing may fire), and hold
// the table in docs/architecture.md to the one in the config.

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIG = join(ROOT, ".dependency-cruiser.mjs");
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");

interface Floor {
  readonly floor: string;
  readonly paths: readonly string[];
  readonly holds: string;
}
interface FloorsModule {
  readonly FLOORS: readonly Floor[];
  readonly SURFACE_FLOORS: readonly Floor[];
  readonly FIRMWARE_SIM_STANDS_ON: readonly string[];
  readonly CONSOLE_MAY_USE: readonly string[];
  readonly BEHIND_THE_DOOR: readonly string[];
  readonly SET_UP_TOOLS: readonly string[];
  readonly SET_UP_TOOLS_MAY_USE: readonly string[];
}
interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
  readonly cycle?: readonly { readonly name: string }[];
}

const floors = (await import(pathToFileURL(CONFIG).href)) as FloorsModule;

interface Report {
  readonly modules: readonly {
    readonly source: string;
    readonly dependencies: readonly { readonly resolved: string }[];
  }[];
  readonly summary: { readonly violations: Violation[] };
}

/** Runs the lint step's command in `cwd` on `paths`; its JSON report. */
function depcruiseReport(cwd: string, paths: readonly string[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [DEPCRUISE, "--config", CONFIG, "--output-type", "json", ...paths],
      { cwd, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // Exit code 1..n = that many errors; the report is on stdout either way.
        if (stdout.trim() === "")
          return reject(new Error(`depcruise printed nothing (${error?.message ?? "no error"}): ${stderr}`));
        resolve(JSON.parse(stdout) as Report);
      },
    );
  });
}

async function depcruise(cwd: string, paths: readonly string[]): Promise<Violation[]> {
  return (await depcruiseReport(cwd, paths)).summary.violations;
}

/** A file that stands for a path of the table: the file itself, or a probe inside the folder. */
const probeOf = (path: string): string => (path.endsWith("/") ? `${path}probe.ts` : path);
const folders = (paths: readonly string[]): string[] => paths.filter((p) => p.endsWith("/"));
const spec = (from: string, to: string): string => {
  const rel = relative(dirname(from), to).replace(/\.ts$/, ".js");
  return rel.startsWith(".") ? rel : `./${rel}`;
};

describe("the floors, as npm run lint checks them", () => {
  let tree: string;
  const files = new Map<string, string[]>();
  /** `from` imports `to` (type-only when asked). */
  const imports = (from: string, to: string, how: "value" | "type" = "value"): void => {
    const list = files.get(from) ?? [];
    list.push(
      how === "type" ? `import type { T as T${list.length} } from "${spec(from, to)}";` : `import "${spec(from, to)}";`,
    );
    files.set(from, list);
    if (!files.has(to)) files.set(to, []);
  };
  const expected: { rule: string; from: string; to: string }[] = [];
  let violations: Violation[];

  const behindTheDoor = (file: string): boolean => floors.BEHIND_THE_DOOR.some((p) => file.startsWith(p));
  /** From every folder of a table to every path of it: the upward imports are expected to break `${prefix}<floor>`. */
  const everyPair = (table: readonly Floor[], prefix: string): void => {
    table.forEach((lower, i) => {
      for (const folder of folders(lower.paths)) {
        table.forEach((other, j) => {
          for (const target of other.paths) {
            if (j === i && probeOf(target) === `${folder}probe.ts`) continue;
            // One importer per pair, so each upward import is its own violation.
            const from = `${folder}to_${other.floor}_${target.replace(/[/.]/g, "_")}.ts`;
            imports(from, probeOf(target));
            if (j > i) expected.push({ rule: `${prefix}${lower.floor}`, from, to: probeOf(target) });
            if (prefix === "floor-" && lower.floor === "surfaces" && behindTheDoor(probeOf(target)))
              expected.push({ rule: "surfaces-through-the-door", from, to: probeOf(target) });
          }
        });
      }
    });
  };

  beforeAll(async () => {
    const { FLOORS, SURFACE_FLOORS, FIRMWARE_SIM_STANDS_ON, CONSOLE_MAY_USE } = floors;
    everyPair(FLOORS, "floor-");
    everyPair(SURFACE_FLOORS, "surfaces-");
    for (const allowed of FIRMWARE_SIM_STANDS_ON)
      imports(`firmware-sim/uses_${allowed.replace(/[/.]/g, "_")}.ts`, probeOf(allowed));
    // Everything else of the bridge is refused: the motion model, kinematics, and every file of the cameras (the bridge's sim camera included).
    for (const refused of [
      "src/motion/probe.ts",
      "src/kinematics/probe.ts",
      "src/cameras/probe.ts",
      "src/cameras/sources/SimCameraSource.ts",
      "src/cameras/Cameras.ts",
      "src/transport/bus/BusChannel.ts",
      "src/executor/probe.ts",
      "src/ledger/probe.ts",
      "src/transport/serial/SerialTransport.ts",
      "src/tools/probe.ts",
      "src/safety/probe.ts",
    ]) {
      const from = `firmware-sim/refused_${refused.replace(/[/.]/g, "_")}.ts`;
      imports(from, refused);
      expected.push({ rule: "firmware-sim-beside", from, to: refused });
    }
    imports("src/surfaces/demo/startsSim.ts", "firmware-sim/spawnSimulator.ts");
    imports("src/bridge/startsSim.ts", "firmware-sim/spawnSimulator.ts");
    expected.push({
      rule: "only-surfaces-start-the-simulator",
      from: "src/bridge/startsSim.ts",
      to: "firmware-sim/spawnSimulator.ts",
    });
    for (const wire of CONSOLE_MAY_USE) imports("console/usesWire.ts", probeOf(wire));
    // The wire package is bundled into the console: no Node builtin and no Node-only package.
    for (const [module, resolved] of [
      ["node:http", "http"],
      ["undici", "undici"],
    ] as const) {
      const from = `src/wire/uses_${module.replace(/\W/g, "_")}.ts`;
      files.set(from, [`import "${module}";`]);
      expected.push({ rule: "wire-runs-in-a-browser", from, to: resolved });
    }
    imports("console/reachesIn.ts", "src/ledger/probe.ts", "type");
    expected.push({ rule: "console-apart", from: "console/reachesIn.ts", to: "src/ledger/probe.ts" });
    imports("src/surfaces/http/page.ts", "console/main.ts");
    expected.push({ rule: "nothing-imports-the-console", from: "src/surfaces/http/page.ts", to: "console/main.ts" });
    throughTheDoor();
    // A cycle through a type-only import is a cycle too.
    imports("src/motion/cycleA.ts", "src/motion/cycleB.ts");
    imports("src/motion/cycleB.ts", "src/motion/cycleA.ts", "type");

    tree = mkdtempSync(join(tmpdir(), "armbridge-floors-"));
    writeFileSync(
      join(tree, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true } }),
    );
    for (const [file, lines] of files) {
      mkdirSync(join(tree, dirname(file)), { recursive: true });
      writeFileSync(join(tree, file), [...lines, "export type T = number;", ""].join("\n"));
    }
    violations = await depcruise(tree, ["src", "firmware-sim", "console"]);
  }, 120_000);

  /** Surfaces that reach behind the Bridge, set-up tools beyond the device layer, and what each may use. */
  function throughTheDoor(): void {
    const { BEHIND_THE_DOOR, SET_UP_TOOLS, SET_UP_TOOLS_MAY_USE } = floors;
    imports("src/surfaces/http/door.ts", "src/bridge/BridgePort.ts", "type");
    imports("src/surfaces/http/door.ts", "src/bridge/portVocabulary.ts");
    // `camera calibrate` drives a running serve: it is a surface like any other.
    for (const from of ["src/surfaces/http/reachesIn.ts", "src/surfaces/cli/camera/reachesIn.ts"])
      for (const behind of [...BEHIND_THE_DOOR.map(probeOf), "src/transport/link/openLink.ts"]) {
        imports(from, behind, "type");
        expected.push({ rule: "surfaces-through-the-door", from, to: behind });
      }
    for (const tool of SET_UP_TOOLS) {
      const from = tool.endsWith("/") ? `${tool}setUp.ts` : tool;
      for (const allowed of SET_UP_TOOLS_MAY_USE) imports(from, probeOf(allowed));
      for (const refused of [
        "src/executor/probe.ts",
        "src/ledger/IntentLedger.ts",
        "src/transport/bus/ServoBusTransport.ts",
      ]) {
        imports(from, refused);
        expected.push({ rule: "set-up-tools-on-the-device-layer", from, to: refused });
      }
    }
  }

  afterAll(() => {
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  const key = (v: { rule: string; from: string; to: string }): string => `${v.rule}: ${v.from} -> ${v.to}`;

  it("refuses every import that runs up a floor, from every floor to every floor above it, and allows every one that runs down", () => {
    const got = violations
      .filter((v) => v.rule.name.startsWith("floor-"))
      .map((v) => key({ rule: v.rule.name, from: v.from, to: v.to }));
    const want = expected.filter((e) => e.rule.startsWith("floor-")).map(key);
    expect(want.length).toBeGreaterThan(100);
    expect(got.sort()).toEqual(want.sort());
  });

  it("refuses every import that runs up a storey inside surfaces, and allows every one that runs down", () => {
    const got = violations
      .filter((v) => v.rule.name.startsWith("surfaces-"))
      .map((v) => key({ rule: v.rule.name, from: v.from, to: v.to }));
    const want = expected.filter((e) => e.rule.startsWith("surfaces-")).map(key);
    expect(want.length).toBeGreaterThan(20);
    expect(got.sort()).toEqual(want.sort());
  });

  it("keeps firmware-sim beside the floors, the simulator out of the bridge, the console apart, and the wire package free of Node", () => {
    const rules = [
      "firmware-sim-beside",
      "only-surfaces-start-the-simulator",
      "console-apart",
      "wire-runs-in-a-browser",
      "nothing-imports-the-console",
    ];
    const got = violations
      .filter((v) => rules.includes(v.rule.name))
      .map((v) => key({ rule: v.rule.name, from: v.from, to: v.to }));
    expect(got.sort()).toEqual(
      expected
        .filter((e) => rules.includes(e.rule))
        .map(key)
        .sort(),
    );
    for (const rule of rules)
      expect(
        got.some((g) => g.startsWith(`${rule}:`)),
        rule,
      ).toBe(true);
  });

  it("lets a surface through the Bridge's port only, and the set-up tools on the device layer only", () => {
    const rules = ["surfaces-through-the-door", "set-up-tools-on-the-device-layer"];
    const got = violations
      .filter((v) => rules.includes(v.rule.name))
      .map((v) => key({ rule: v.rule.name, from: v.from, to: v.to }));
    const want = expected.filter((e) => rules.includes(e.rule)).map(key);
    expect(got.sort()).toEqual(want.sort());
    for (const rule of rules)
      expect(
        got.some((g) => g.startsWith(`${rule}:`)),
        rule,
      ).toBe(true);
  });

  it("refuses an import cycle, also one closed by a type-only import", () => {
    const cycles = violations.filter((v) => v.rule.name === "no-cycles");
    expect(cycles.length).toBeGreaterThan(0);
    for (const c of cycles) {
      expect([c.from, c.to].sort()).toEqual(["src/motion/cycleA.ts", "src/motion/cycleB.ts"]);
      expect((c.cycle ?? []).map((m) => m.name).sort()).toEqual(["src/motion/cycleA.ts", "src/motion/cycleB.ts"]);
    }
  });

  it("finds nothing on the real tree: no import up a floor, no exception, no cycle", async () => {
    const real = await depcruiseReport(ROOT, ["src", "firmware-sim", "console", "bench"]);
    expect(real.modules.length).toBeGreaterThan(300);
    expect(real.summary.violations.map((v) => key({ rule: v.rule.name, from: v.from, to: v.to }))).toEqual([]);
    // A file of src/surfaces on no storey would be out of the inner rule's sight.
    const storeys = floors.SURFACE_FLOORS.flatMap((f) => f.paths);
    const onNoStorey = real.modules
      .map((m) => m.source)
      .filter((s) => s.startsWith("src/surfaces/"))
      .filter((s) => !storeys.some((p) => (p.endsWith("/") ? s.startsWith(p) : s === p)));
    expect(onNoStorey).toEqual([]);
  }, 120_000);
});

describe("docs/architecture.md", () => {
  it.each([
    ["Floors", () => floors.FLOORS],
    ["Floors inside surfaces", () => floors.SURFACE_FLOORS],
  ] as const)("shows the table the lint checks in '## %s', floor by floor, bottom to top", (title, table) => {
    const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
    const section = doc.split(/^## /m).find((s) => s.startsWith(`${title}\n`));
    expect(section, `a '## ${title}' section`).toBeDefined();
    const rows = (section ?? "")
      .split("\n")
      .filter((l) => /^\| \d+ \|/.test(l))
      .map((l) => l.split("|").map((c) => c.trim()));
    const shown = rows.map((cells) => ({
      floor: cells[2],
      paths: [...(cells[3] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    }));
    expect(shown).toEqual(
      table()
        .map((f) => ({ floor: f.floor, paths: [...f.paths] }))
        .reverse(),
    );
  });
});
