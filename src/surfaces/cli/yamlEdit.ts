import { isMap, isPair, isScalar, parseDocument, type Node } from "yaml";
import { cliUsageError } from "./cliUsageError.js";

/**
 * Sets one key of a block mapping in a YAML text by editing only that key's
 * lines: the rest of the file — comments, alignment, flow maps laid out by
 * hand — stays byte for byte. `render` gets the key's indentation and
 * returns what follows `key:` (" value" on the same line, or "\n" and
 * deeper-indented lines). The mapping is found by `path` (keys and list
 * indexes from the top).
 */
export function setYamlKey(text: string, path: readonly (string | number)[], key: string, render: (indent: string) => string, where: string): string {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw cliUsageError(`${where} is not valid YAML: ${doc.errors[0]?.message}`);
  const map = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isMap(map) || map.flow) throw cliUsageError(`${where}: ${path.join(".") || "the top level"} is not a block mapping armbridge can add ${key} to; add it by hand`);
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
    return text.slice(0, start) + `${key}:${render(column(start))}` + text.slice(end);
  }
  const last = map.items[map.items.length - 1];
  if (!firstKey?.range || !last || !isPair(last)) throw cliUsageError(`${where}: ${path.join(".")} is empty; add ${key} by hand`);
  let lastEnd = ((last.value as Node | null)?.range ?? (last.key as Node).range)?.[1] ?? text.length;
  while (lastEnd > 0 && /\s/.test(text[lastEnd - 1] ?? "")) lastEnd--;
  const indent = column(firstKey.range[0]);
  return text.slice(0, lastEnd) + `\n${indent}${key}:${render(indent)}` + text.slice(lastEnd);
}
