import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ArmbridgeError } from "../errors.js";

/** Throws ARMB_ERR_URDF_INVALID naming the URDF (and, for a cycle, its joints). */
export type UrdfFail = (reason: string, joints?: readonly string[]) => never;

/** A URDF read once: its `<robot>` element (links, joints and each link's collisions always arrays) and how to refuse it. */
export interface UrdfDocument {
  readonly robot: Readonly<Record<string, unknown>>;
  readonly fail: UrdfFail;
}

/**
 * Reads a URDF's XML with fast-xml-parser, for every part of armbridge that
 * needs it (the kinematic tree, parseUrdf; the collision geometry,
 * parseUrdfCollisions). Anything that is not well-formed, not a `<robot>`, or
 * declares entities is ARMB_ERR_URDF_INVALID naming `source`.
 */
export function readUrdfDocument(text: string, source: string): UrdfDocument {
  const fail: UrdfFail = (reason, joints) => {
    throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", { path: source, reason, ...(joints ? { joints } : {}) });
  };
  const valid = XMLValidator.validate(text);
  if (valid !== true) fail(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  // xacro expands its macros before a URDF is written, so a URDF needs no DTD
  // entities; one that declares them (a billion-laughs bomb, an external file
  // to read) is refused, and nothing is ever expanded.
  if (declaresEntities(text))
    fail("it declares XML entities (<!ENTITY …>); a URDF needs none, and they are never expanded");
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    processEntities: false,
    isArray: (_name, jPath) => jPath === "robot.link" || jPath === "robot.joint" || jPath === "robot.link.collision",
  });
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    // The validator passes some documents the parser then refuses (DOCTYPE forms, tag names): still the file's fault, not ours.
    return fail(`not a usable XML document: ${(error as Error).message}`);
  }
  const robot = doc.robot as Record<string, unknown> | undefined;
  if (!robot || typeof robot !== "object") return fail("no <robot> element");
  return { robot, fail };
}

/** An element that may appear once or many times, as a list. */
export function asArray(v: unknown): unknown[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** An attribute of an element, when it is there. */
export function attr(el: unknown, key: string): string | undefined {
  if (!el || typeof el !== "object") return undefined;
  const v = (el as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

/** Three finite numbers from an attribute (`xyz`, `rpy`, `size`, `scale`); `fallback` when it is absent, or a refusal when there is none. */
export function tripleAt(
  text: string | undefined,
  fallback: readonly [number, number, number] | undefined,
  where: string,
  fail: UrdfFail,
): [number, number, number] {
  if (text === undefined) return fallback ? [fallback[0], fallback[1], fallback[2]] : fail(`${where} is missing`);
  const parts = text.trim().split(/\s+/).map(Number);
  if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p))) fail(`${where} is "${text}", not three numbers`);
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

/** An `<!ENTITY` after a `<!DOCTYPE` (two scans: linear, whatever the text). */
function declaresEntities(text: string): boolean {
  const doctype = text.search(/<!DOCTYPE/i);
  return doctype >= 0 && /<!ENTITY/i.test(text.slice(doctype));
}
