import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../config/packageRoot.js";

/*
 * The operator console: one self-contained page (no CDN, nothing fetched but
 * the API). Its code lives in console/ (TypeScript, type-checked and linted
 * with the rest) and its style in console/console.css; `npm run build` bundles
 * them into dist/console/page.json together with the Content-Security-Policy,
 * whose script and style hashes are computed from those exact bytes there —
 * never kept by hand. The installed package ships dist/, so this works from
 * an install as from a checkout.
 */

export interface ConsolePage {
  readonly html: string;
  /** Allows exactly the page's own inline script and style and nothing from elsewhere. */
  readonly contentSecurityPolicy: string;
}

export const CONSOLE_PAGE_FILE = join("dist", "console", "page.json");

let cached: ConsolePage | undefined;

/** The built page; throws naming the missing file (and the command that makes it) when the console was not built. */
export function consolePage(): ConsolePage {
  if (cached) return cached;
  const file = join(packageRoot(), CONSOLE_PAGE_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`the operator console is not built (${file} is missing): run npm run build`, { cause: error });
  }
  const page = JSON.parse(text) as Partial<ConsolePage>;
  if (typeof page.html !== "string" || typeof page.contentSecurityPolicy !== "string")
    throw new Error(`${file} is not a built console page: run npm run build`);
  return (cached = { html: page.html, contentSecurityPolicy: page.contentSecurityPolicy });
}
