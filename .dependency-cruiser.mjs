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
    paths: [
      "src/errors.ts",
      "src/errorCodes/",
      "src/errorsDoc.ts",
      "src/validation/",
      "src/random/",
      "src/observability/",
      "src/geometry/",
      "src/commandLine/",
    ],
    holds:
      "error codes, zod issues in words, the seeded random, the logger, the homography fit, overflow-safe vector lengths, the one flag parser and the signals that end a command",
  },
  {
    floor: "protocol",
    paths: ["src/protocol/"],
    holds:
      "the device contract: serial v1 codec, servo-bus packets and control tables, the RFC 2217 codec, servo axis maths, the motion-time model",
  },
  { floor: "config", paths: ["src/config/"], holds: "the arm config: schema, loader, actuators and resource keys" },
  {
    floor: "motion",
    paths: ["src/motion/", "src/kinematics/", "src/safety/"],
    holds: "the motion-time model, MotionPlan, kinematics, the envelope check",
  },
  {
    floor: "imaging",
    paths: ["src/imaging/"],
    holds:
      "pictures: JPEG/PNG encoding, one capture shared by the requests that come while it runs, and the simulated camera's renderer (scene + arm pose → picture)",
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
    floor: "recording",
    paths: ["src/recording/"],
    holds: "the bridge-side services that follow a bridge through its port: the MCAP recording of each session",
  },
  {
    floor: "surfaces",
    paths: ["src/surfaces/", "src/index.ts"],
    holds: "HTTP, MCP, Gemini, CLI, the demo; the public index",
  },
];

/**
 * The surfaces floor has storeys of its own, bottom to top, under the same
 * rule: a storey imports from itself and the storeys below. The commands
 * (cli, demo) stand on top, the runtime they share under them, then the
 * clients of a running serve, the HTTP server, the model links, and at the
 * bottom what every surface shares. Every file of src/surfaces stands on one
 * (test/lint/floors.test.ts).
 */
export const SURFACE_FLOORS = [
  {
    floor: "shared",
    paths: [
      "src/surfaces/client/",
      "src/surfaces/toFunctionResponse.ts",
      "src/surfaces/splitImages.ts",
      "src/surfaces/packageVersion.ts",
    ],
    holds:
      "what every surface shares: a tool result as a model reads it, images split out of it, the package version; the HTTP client's Node pieces",
  },
  {
    floor: "model-links",
    paths: ["src/surfaces/gemini/", "src/surfaces/mcp/"],
    holds: "the Gemini agent loops (unary and Live) and the MCP server",
  },
  {
    floor: "http",
    paths: ["src/surfaces/http/"],
    holds: "the HTTP API server, its MCP endpoint and the console it serves",
  },
  {
    floor: "attach",
    paths: ["src/surfaces/attach/"],
    holds: "a running serve seen as a bridge (RemoteBridge) and the MCP stdio relay to it",
  },
  {
    floor: "runtime",
    paths: ["src/surfaces/runtime/"],
    holds:
      "the command runtime: process scope and stop signals, startServing, the flag parser and the shared bridge flags",
  },
  {
    floor: "demo",
    paths: ["src/surfaces/demo/"],
    holds: "npm start: the simulator, a serve on it, the ER session and the scripted session, narrated",
  },
  { floor: "cli", paths: ["src/surfaces/cli/"], holds: "the armbridge commands and their registry" },
];

/**
 * firmware-sim stands beside the floors: a device, not a part of the bridge.
 * It stands on the device contract (src/protocol/), the config, the imaging
 * package (its camera server draws the `source: sim` cameras with the same
 * renderer as the bridge) and the floor-1 modules, never on anything else of
 * the bridge: not the cameras, not a transport, not the kinematics directly.
 */
export const FIRMWARE_SIM_STANDS_ON = [
  ...FLOORS.find((f) => f.floor === "errors").paths,
  "src/protocol/",
  "src/config/",
  "src/imaging/",
];

/** The operator console (browser code) stands apart: it takes the wire package (contract and client) and nothing else of src/. */
export const CONSOLE_MAY_USE = ["src/wire/"];

/**
 * The Bridge is the one door: a surface takes the bridge's port
 * (src/bridge/BridgePort.ts, its vocabulary in portVocabulary.ts) and nothing
 * behind it, so the executor, the ledger and the transports can change shape,
 * or stand in another process (RemoteBridge), without a surface noticing.
 */
export const BEHIND_THE_DOOR = ["src/executor/", "src/ledger/", "src/transport/"];

/**
 * The set-up tools talk to a device before any bridge runs — an unwired bus
 * to scan, a servo to calibrate, a link to check — so there is no door to go
 * through: they stand on the device layer (bus packets and set-up exchanges, servo
 * axes and limits, opening a link, a ROS 2 node), and
 * `doctor` also reads the arm record and owner file a ledger folder keeps,
 * without opening the ledger a running bridge may hold. The demo's bus names
 * the protocols of the simulated device it starts. `camera calibrate` is not
 * among them: it drives a running serve over its HTTP API.
 */
export const SET_UP_TOOLS = [
  "src/surfaces/cli/bus/",
  "src/surfaces/cli/calibrate/",
  "src/surfaces/cli/doctor/",
  "src/surfaces/demo/demoBus.ts",
];
export const SET_UP_TOOLS_MAY_USE = [
  "src/transport/bus/setup/",
  "src/transport/bus/servoConditionLimits.ts",
  "src/transport/link/openLink.ts",
  "src/transport/ros2/createRos2Node.ts",
  "src/transport/ros2/loadRclnodejs.ts",
  "src/transport/ros2/rclTypes.ts",
  "src/transport/ros2/UrRobotStatus.ts",
  "src/transport/ros2/readRobotDescription.ts",
  "src/ledger/ArmBinding.ts",
  "src/ledger/LedgerOwner.ts",
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A path of the table as an anchored regular expression. */
export const pathPattern = (p) => (p.endsWith("/") ? `^${escape(p)}` : `^${escape(p)}$`);
const anyOf = (paths) => paths.map(pathPattern);

/** One rule per floor of a table but the top one: nothing imported from a floor above it. */
const rulesOf = (table, prefix, section) =>
  table.slice(0, -1).map((f, i) => {
    const above = table.slice(i + 1);
    return {
      name: `${prefix}${f.floor}`,
      severity: "error",
      comment: `The ${f.floor} floor may not import from a floor above it (${above.map((a) => a.floor).join(", ")}): move the shared part down, or the importer up (docs/architecture.md, "${section}").`,
      from: { path: anyOf(f.paths) },
      to: { path: anyOf(above.flatMap((a) => a.paths)) },
    };
  });

export default {
  forbidden: [
    ...rulesOf(FLOORS, "floor-", "Floors"),
    ...rulesOf(SURFACE_FLOORS, "surfaces-", "Floors inside surfaces"),
    {
      name: "surfaces-through-the-door",
      severity: "error",
      comment:
        'A surface goes through the Bridge\'s port (src/bridge/BridgePort.ts, portVocabulary.ts), never into the executor, the ledger or a transport: add what it needs to the port (docs/architecture.md, "The one door").',
      from: { path: "^src/surfaces/", pathNot: anyOf(SET_UP_TOOLS) },
      to: { path: anyOf(BEHIND_THE_DOOR) },
    },
    {
      name: "set-up-tools-on-the-device-layer",
      severity: "error",
      comment:
        "The set-up tools run with no bridge: they may use the device layer (bus, link, ROS 2) and a ledger folder's records, never the executor, the ledger itself or a transport (SET_UP_TOOLS above says why).",
      from: { path: anyOf(SET_UP_TOOLS) },
      to: { path: anyOf(BEHIND_THE_DOOR), pathNot: anyOf(SET_UP_TOOLS_MAY_USE) },
    },
    {
      name: "firmware-sim-beside",
      severity: "error",
      comment:
        "firmware-sim is a device beside the bridge: from src/ it stands on the protocol package, the config, the imaging package (the simulated camera's renderer both sides draw with) and the floor-1 modules only.",
      from: { path: "^firmware-sim/" },
      to: { path: "^src/", pathNot: anyOf(FIRMWARE_SIM_STANDS_ON) },
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
