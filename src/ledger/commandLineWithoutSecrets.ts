/**
 * A command line as it may be shown to others: the ledger's owner file is
 * read by every later process on the same data folder (and quoted in their
 * ARMB_ERR_LEDGER_LOCKED refusal), so the holder's credentials must not be in
 * it. Values of secret-looking flags (`--token X`, `--token=X`,
 * `--operator-token`, `--api-key`…), `NAME=value` arguments whose name looks
 * secret (`ARMBRIDGE_TOKEN=…`, `GEMINI_API_KEY=…`), a URL's user:password and
 * its `token=` query or fragment parameters are replaced by `***`.
 */
export const REDACTED = "***";

/** A flag or variable name that carries a credential. */
const SECRET_NAME = /(token|secret|passw(or)?d|api[-_]?key|credential|auth)/i;

export function commandLineWithoutSecrets(argv: readonly string[]): string {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const flag = /^(--?[A-Za-z][\w-]*)(=(.*))?$/s.exec(arg);
    if (flag && SECRET_NAME.test(flag[1] ?? "")) {
      if (flag[2] !== undefined) out.push(`${flag[1]}=${REDACTED}`);
      else {
        out.push(arg);
        // The next argument is the value unless it is another flag.
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith("--")) {
          out.push(REDACTED);
          i++;
        }
      }
      continue;
    }
    out.push(withoutInlineSecrets(arg));
  }
  return out.join(" ");
}

/** `NAME=value` with a secret name, a URL's user info, and `token=` parameters. */
function withoutInlineSecrets(arg: string): string {
  const env = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(arg);
  if (env && SECRET_NAME.test(env[1] ?? "")) return `${env[1]}=${REDACTED}`;
  return arg
    .replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@\s]*@/, `$1${REDACTED}@`)
    .replace(/([?#&;]([\w-]*(?:token|secret|key|passw(?:or)?d)[\w-]*)=)[^&#\s]*/gi, `$1${REDACTED}`);
}
