// The armbridge bin's entry files as bundles, so `serve` comes back quickly
// after a crash: Node spends most of serve's start-up finding, reading and
// compiling ~850 module files (zod, fastify, yaml, pino … and our own), not
// running them. esbuild writes the CLI's entries over tsc's output of the same
// files, so every path that names them (the bin, the tests, `mcp`'s host
// entries) runs the bundle; the other commands' code and anything imported
// on demand sit in chunks loaded when used.
//
// The entries are the bin and the heavy commands it loads on use (agent, mcp,
// demo), whose own paths in dist/ are named too (the tests, a direct run):
// one module graph shared through the chunks, so no module (an error
// class an `instanceof` checks, say) is loaded twice. A module that asks for
// its own `import.meta.url` is given the URL of its tsc output, where it
// would be without the bundle. Native addons and packages loaded only on
// demand stay outside, loaded from node_modules as before.
//   node scripts/bundleCli.mjs    (after tsc -p tsconfig.build.json)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");

const ENTRIES = [
  "src/surfaces/cli/main.ts",
  "src/surfaces/cli/agent/agentCommand.ts",
  "src/surfaces/cli/mcp/mcpCommand.ts",
  "src/surfaces/demo/demoCommand.ts",
];

/**
 * Native addons, the optional ROS 2 binding, and large packages only some
 * commands load on demand, none of which is handed a schema of the bundled zod
 * (the MCP SDK is: it is bundled, so both see one zod).
 */
const EXTERNAL = [
  "better-sqlite3",
  "serialport",
  "@serialport/*",
  "rclnodejs",
  "@google/genai",
  "undici",
  "ws",
  "three",
  "esbuild",
];

/** Replaced in each output file by the way from that file up to dist/, once esbuild has placed the code. */
const DIST_FROM_HERE = "__ARMBRIDGE_DIST_FROM_HERE__";

/** `import.meta.url` as the module's tsc output in dist/ has it, wherever the bundle put its code. */
const moduleUrlAsBuilt = {
  name: "module-url-as-built",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/, namespace: "file" }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const asBuilt = relative(root, args.path).replace(/\.ts$/, ".js").split("\\").join("/");
      const url = `new URL(${JSON.stringify(`${DIST_FROM_HERE}/${asBuilt}`)}, import.meta.url).href`;
      return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outbase: ".",
  outdir: dist,
  bundle: true,
  splitting: true,
  chunkNames: "cli-chunks/[name]-[hash]",
  platform: "node",
  format: "esm",
  target: "node20",
  external: EXTERNAL,
  // The CommonJS packages bundled in (fastify, pino, yaml …) require Node's builtins.
  banner: {
    js: 'import { createRequire as __armbridgeRequire } from "node:module";\nconst require = __armbridgeRequire(import.meta.url);',
  },
  plugins: [moduleUrlAsBuilt],
  write: false,
  logLevel: "warning",
});

// Chunk names carry a hash of their content: the last build's would pile up beside these.
rmSync(join(dist, "cli-chunks"), { recursive: true, force: true });
for (const file of result.outputFiles) {
  const up = relative(dirname(file.path), dist).split("\\").join("/") || ".";
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.text.replaceAll(DIST_FROM_HERE, up));
}
