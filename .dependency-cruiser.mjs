// The floors of the house, checked on every `npm run lint`.
//
// A folder may import from its own floor and the floors below it, never from
// a floor above; no file may take part in an import cycle (type-only imports
// count: a cycle of types is still two files that cannot be read apart).
// docs/architecture.md ("Floors") shows this table; a test keeps the two equal
// (test/lint/floors.test.ts), and shows each rule firing on a file that breaks it.

/** Bottom to top. A path ending in "/" is a folder, else one file. */
export const FLOORS = [
  {
    floor: "wire",
    paths: ["src/wire/"],
    holds: "the HTTP API's contract: vocabulary, schemas, route table, the one client",
  },
  {
    floor: "errors",
    paths: ["src/errors.ts", "src/validation/", "src/random/", "src/observability/", "src/geometry/"],
    holds:
      "error codes, zod issues in words, the seeded random, the logger, the homography fit, overflow-safe vector lengths",
  },
  { floor: "config", paths: ["src/config/"], holds: "the arm config: schema, loader, actuators and resource keys" },
  {
    floor: "motion",
    paths: ["src/motion/", "src/kinematics/", "src/safety/"],
    holds: "the motion-time model, MotionPlan, kinematics, the envelope check",
  },
  {
    floor: "transport",
    paths: ["src/transport/", "src/cameras/"],
    holds: "the Transport contract and its serial, bus and ROS 2 implementations; the cameras",
  },
  { floor: "ledger", paths: ["src/ledger/"], holds: "the intent ledger, its rows and the confirm-outcome rules" },
  {
    floor: "executor",
    paths: ["src/executor/"],
    holds: "the executor and the tool contract it runs (ToolDefinition, ToolRegistry)",
  },
  { floor: "tools", paths: ["src/tools/"], holds: "the default tools and their shared conventions" },
  { floor: "bridge", paths: ["src/bridge/"], holds: "the composition root" },
  {
    floor: "surfaces",
    paths: ["src/surfaces/", "src/index.ts"],
    holds: "HTTP, MCP, Gemini, CLI, the demo; the public index",
  },
];

/**
 * firmware-sim stands beside the floors: a device, not a part of the bridge.
 * It uses the wire codecs, the config, the shared motion model and the
 * simulated camera's renderer, never the executor, the ledger or a transport.
 */
export const FIRMWARE_SIM_MAY_USE = [
  ...FLOORS.find((f) => f.floor === "errors").paths,
  "src/config/",
  "src/motion/",
  "src/kinematics/",
  "src/transport/serial/protocol/",
  "src/transport/bus/protocol/",
  "src/transport/link/rfc2217/protocol/",
  "src/transport/bus/servoAxes.ts",
  "src/cameras/sim/",
  "src/cameras/sources/SimCameraSource.ts",
  "src/cameras/sources/CameraSource.ts",
  "src/cameras/CameraFrame.ts",
  "src/cameras/encodeImage.ts",
];

/** The operator console (browser code) stands apart: it takes the wire package (contract and client) and nothing else of src/. */
export const CONSOLE_MAY_USE = ["src/wire/"];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A path of the table as an anchored regular expression. */
export const pathPattern = (p) => (p.endsWith("/") ? `^${escape(p)}` : `^${escape(p)}$`);
const anyOf = (paths) => paths.map(pathPattern);

const floorRules = FLOORS.slice(0, -1).map((f, i) => {
  const above = FLOORS.slice(i + 1);
  return {
    name: `floor-${f.floor}`,
    severity: "error",
    comment: `The ${f.floor} floor may not import from a floor above it (${above.map((a) => a.floor).join(", ")}): move the shared part down, or the importer up (docs/architecture.md, "Floors").`,
    from: { path: anyOf(f.paths) },
    to: { path: anyOf(above.flatMap((a) => a.paths)) },
  };
});

export default {
  forbidden: [
    ...floorRules,
    {
      name: "firmware-sim-beside",
      severity: "error",
      comment:
        "firmware-sim is a device beside the bridge: it may use the wire codecs, the config, the motion model and the simulated camera, never the executor, the ledger, the tools or a transport.",
      from: { path: "^firmware-sim/" },
      to: { path: "^src/", pathNot: anyOf(FIRMWARE_SIM_MAY_USE) },
    },
    {
      name: "only-surfaces-start-the-simulator",
      severity: "error",
      comment: "Only a surface (the demo) may start firmware-sim; the bridge's floors never depend on the simulator.",
      from: { path: "^src/", pathNot: "^src/surfaces/" },
      to: { path: "^firmware-sim/" },
    },
    {
      name: "console-apart",
      severity: "error",
      comment:
        "The console is browser code: from src/ it takes the server's wire types only (docs/architecture.md, \"The console's wire contract\").",
      from: { path: "^console/" },
      to: { path: "^(src|firmware-sim|bench)/", pathNot: anyOf(CONSOLE_MAY_USE) },
    },
    {
      name: "wire-runs-in-a-browser",
      severity: "error",
      comment:
        "src/wire/ is bundled into the console: it imports zod and itself only, never a Node builtin or undici (a Node caller injects its own dispatcher from outside).",
      from: { path: "^src/wire/" },
      to: { path: ".", pathNot: ["^src/", "node_modules/zod/"] },
    },
    {
      name: "nothing-imports-the-console",
      severity: "error",
      comment: "The console is built on its own (console/build.mjs) and served as a page; no server code imports it.",
      from: { path: "^(src|firmware-sim|bench)/" },
      to: { path: "^console/" },
    },
    {
      name: "no-cycles",
      severity: "error",
      comment:
        "Files that import each other in a loop cannot be read, tested or moved apart: put what both need in a file of its own.",
      from: { path: "^(src|firmware-sim|console|bench)/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
    // Type-only imports are imports: a floor may not lean on an upper floor's types either.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
