// Runs a bench that needs code outside the build (the ROS 2 test double,
// test/doubles/, which dist/ does not ship): esbuild bundles the entry into
// dist/bench/ — inside the package, so packageRoot() still finds it — with
// every npm package left external, then Node runs the bundle.
//   node bench/runBundled.mjs bench/link.bench.ts
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const entry = process.argv[2];
if (!entry) {
  process.stderr.write("usage: node bench/runBundled.mjs ENTRY.ts\n");
  process.exit(2);
}
const outDir = join(import.meta.dirname, "..", "dist", "bench");
mkdirSync(outDir, { recursive: true });
const outfile = join(outDir, basename(entry).replace(/\.ts$/, ".bundle.mjs"));
await build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outfile,
  sourcemap: "inline",
  logLevel: "warning",
});
await import(pathToFileURL(outfile).href);
