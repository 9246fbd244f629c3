// Builds the operator console into dist/console/page.json: one HTML page with
// the bundled script and the stylesheet inline, and the Content-Security-Policy
// whose hashes are computed here from exactly those bytes, so the policy can
// never drift from the page it guards. Run by `npm run build`.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const here = import.meta.dirname;
const outDir = join(here, "..", "dist", "console");

const bundle = await build({
  entryPoints: [join(here, "main.ts")],
  bundle: true,
  format: "iife",
  target: "es2022",
  platform: "browser",
  write: false,
  // three.js (the 3D view) is most of the bundle: whitespace and syntax are
  // minified to halve the page; names are kept, so an error still says where.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: false,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});
const script = bundle.outputFiles[0].text;
const style = readFileSync(join(here, "console.css"), "utf8");
const body = readFileSync(join(here, "body.html"), "utf8");

// Inline text may not close its own element early.
if (/<\/script/i.test(script)) throw new Error("console bundle contains </script: it cannot be inlined");
if (/<\/style/i.test(style)) throw new Error("console.css contains </style: it cannot be inlined");

const sha256 = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>armbridge operator console</title>
<style>${style}</style></head>
<body>${body}<script>${script}</script></body></html>
`;
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "page.json"), JSON.stringify({ html, contentSecurityPolicy }));
console.log(`console: dist/console/page.json (script ${script.length} B, style ${style.length} B)`);
