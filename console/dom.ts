/*
 * The only way console code puts data on the page: text goes in through
 * textContent and attributes through setAttribute, never markup. Args, call
 * ids, operator names, notes, fault strings and error messages all come from
 * outside (a model, a device, another operator) and must stay inert.
 */

export function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`console page is missing #${id}`);
  return e;
}

export interface ElOptions {
  readonly cls?: string | undefined;
  readonly text?: string | number | undefined;
  readonly attrs?: Readonly<Record<string, string>>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElOptions = {},
  children: readonly Node[] = [],
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (options.cls) e.className = options.cls;
  if (options.text !== undefined) e.textContent = String(options.text);
  for (const [k, v] of Object.entries(options.attrs ?? {})) e.setAttribute(k, v);
  for (const c of children) e.appendChild(c);
  return e;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string | number>> = {},
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export function setAttrs(e: Element, attrs: Readonly<Record<string, string | number>>): void {
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
}

export function clear(e: Node): void {
  while (e.firstChild) e.removeChild(e.firstChild);
}

/** Replaces an element's text only when it changed (screen readers re-announce every write in an aria-live region). */
export function setText(e: Element, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}
