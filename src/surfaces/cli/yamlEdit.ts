import { isMap, isPair, isScalar, parseDocument, visit, type Document, type Node } from "yaml";
import { cliUsageError } from "../runtime/cliUsageError.js";

/**
 * Sets one key of a block mapping in a YAML text by editing only that key's
 * lines: the rest of the file — comments, alignment, flow maps laid out by
 * hand — stays byte for byte. `render` gets the key's indentation and
 * returns what follows `key:` (" value" on the same line, or "\n" and
 * deeper-indented lines). The mapping is found by `path` (keys and list
 * indexes from the top).
 */
export function setYamlKey(
  text: string,
  path: readonly (string | number)[],
  key: string,
  render: (indent: string) => string,
  where: string,
): string {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw cliUsageError(`${where} is not valid YAML: ${doc.errors[0]?.message}`);
  const map = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isMap(map) || map.flow)
    throw cliUsageError(
      `${where}: ${path.join(".") || "the top level"} is not a block mapping armbridge can add ${key} to; add it by hand`,
    );
  const keyOf = (n: unknown): unknown => (isScalar(n) ? n.value : n);
  const pair = map.items.find((p) => isPair(p) && keyOf(p.key) === key);
  const first = map.items[0];
  const firstKey = first && isPair(first) ? (first.key as Node | null) : null;
  const column = (offset: number): string => " ".repeat(offset - (text.lastIndexOf("\n", offset - 1) + 1));
  if (pair && isPair(pair)) {
    const k = pair.key as Node | null;
    const v = pair.value as Node | null;
    if (!k?.range) throw cliUsageError(`${where}: cannot locate ${key}`);
    const start = k.range[0];
    // A block value's range runs on past its last line break; the edit stops at its last character.
    let end = v?.range ? v.range[1] : k.range[1];
    while (end > start && /\s/.test(text[end - 1] ?? "")) end--;
    if (v) refuseAliasedAnchors(doc, v, [...path, key].join("."), where);
    return checked(text.slice(0, start) + `${key}:${render(column(start))}` + text.slice(end), where);
  }
  const last = map.items[map.items.length - 1];
  if (!firstKey?.range || !last || !isPair(last))
    throw cliUsageError(`${where}: ${path.join(".")} is empty; add ${key} by hand`);
  let lastEnd = ((last.value as Node | null)?.range ?? (last.key as Node).range)?.[1] ?? text.length;
  while (lastEnd > 0 && /\s/.test(text[lastEnd - 1] ?? "")) lastEnd--;
  const indent = column(firstKey.range[0]);
  return checked(text.slice(0, lastEnd) + `\n${indent}${key}:${render(indent)}` + text.slice(lastEnd), where);
}

/**
 * A value about to be replaced may carry an anchor (`&name`) that another
 * part of the file uses (`*name`): replacing it would either leave that alias
 * pointing nowhere (the file stops loading) or, kept, change the other part
 * too. Neither is the edit asked for, so nothing is written and the person is
 * told which parts share it.
 */
function refuseAliasedAnchors(doc: Document, value: Node, at: string, where: string): void {
  const anchors = new Set<string>();
  visit(value, (_key, node) => {
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor !== undefined) anchors.add(anchor);
  });
  if (anchors.size === 0) return;
  const users: string[] = [];
  visit(doc, {
    Alias(_key, node, path) {
      if (anchors.has(node.source) && !path.includes(value)) users.push(`*${node.source}`);
    },
  });
  if (users.length > 0) {
    throw cliUsageError(
      `${where}: ${at} is anchored (${[...anchors].map((a) => `&${a}`).join(", ")}) and used elsewhere in the file (${users.join(", ")}); replacing it would change or break those too. Give each its own value, then run this again (nothing was written)`,
    );
  }
}

/** The edited text must still be one valid YAML document; otherwise nothing is written. */
function checked(edited: string, where: string): string {
  const doc = parseDocument(edited);
  if (doc.errors.length > 0)
    throw cliUsageError(
      `${where}: the edit would leave the file invalid (${doc.errors[0]?.code ?? "YAML error"}); nothing was written`,
    );
  return edited;
}
