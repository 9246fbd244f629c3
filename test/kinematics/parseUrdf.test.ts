import { describe, expect, it } from "vitest";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";

const robot = (body: string): string =>
  `<?xml version="1.0"?><robot name="r"><link name="a"/><link name="b"/>${body}</robot>`;
const revolute = (extra = ""): string =>
  `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/>${extra}</joint>`;

describe("parseUrdf: a malformed URDF is a coded error naming what is wrong", () => {
  it.each([
    ["not XML", "<robot><link name='a'>", /not well-formed/],
    ["no robot element", `<?xml version="1.0"?><thing/>`, /no <robot>/],
    [
      "an unsupported joint type",
      robot(`<joint name="j" type="floating"><parent link="a"/><child link="b"/></joint>`),
      /type floating/,
    ],
    [
      "an undefined child link",
      robot(`<joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>`),
      /child link c is not defined/,
    ],
    [
      "a revolute joint without limits",
      robot(`<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>`),
      /needs a <limit>/,
    ],
    ["an origin that is not three numbers", robot(revolute(`<origin xyz="0 0"/>`)), /<origin xyz> is "0 0"/],
    [
      "a zero axis",
      robot(
        `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/><limit lower="-1" upper="1"/></joint>`,
      ),
      /<axis xyz="0 0 0"> is zero/,
    ],
    [
      "inverted limits",
      robot(
        `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="1" upper="-1"/></joint>`,
      ),
      /limits \[1, -1\]/,
    ],
  ])("%s", (_what, text, reason) => {
    let caught: unknown;
    try {
      parseUrdf(text, "bad.urdf");
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "ARMB_ERR_URDF_INVALID" });
    expect((caught as Error).message).toMatch(reason);
  });

  it("a tip that does not descend from the base is refused", () => {
    const model = parseUrdf(robot(revolute()), "r.urdf");
    expect(() => new KinematicChain(model, "b", "a", "r.urdf")).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }),
    );
    expect(() => new KinematicChain(model, "a", "nowhere", "r.urdf")).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }),
    );
  });

  it("a well-formed joint: origin, normalised axis, limits; the URDF default axis is x", () => {
    const m = parseUrdf(
      robot(
        `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 2 3" rpy="0.1 0.2 0.3"/><axis xyz="0 0 2"/><limit lower="-1" upper="1"/></joint>`,
      ),
      "r",
    );
    expect(m.joints[0]).toMatchObject({
      xyz: [1, 2, 3],
      rpy: [0.1, 0.2, 0.3],
      axis: [0, 0, 1],
      limit: { lower: -1, upper: 1 },
    });
    const d = parseUrdf(robot(`<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>`), "r");
    expect(d.joints[0]).toMatchObject({ xyz: [0, 0, 0], rpy: [0, 0, 0], axis: [1, 0, 0], limit: undefined });
  });
});

describe("parseUrdf: hostile or broken descriptions are refused with a coded error naming the file, never hang or escape as internal", () => {
  const codeOf = (
    text: string,
    source = "hostile.urdf",
  ): { code: unknown; message: string; details: Record<string, unknown> } => {
    try {
      parseUrdf(text, source);
    } catch (error) {
      const e = error as { code?: unknown; message: string; details?: Record<string, unknown> };
      return { code: e.code, message: e.message, details: e.details ?? {} };
    }
    return { code: "accepted", message: "", details: {} };
  };

  it("fixed joints a→b and b→a: a cycle, naming both joints (it used to hang the start)", () => {
    const text = `<robot name="r"><link name="base"/><link name="a"/><link name="b"/>
      <joint name="a_to_b" type="fixed"><parent link="a"/><child link="b"/></joint>
      <joint name="b_to_a" type="fixed"><parent link="b"/><child link="a"/></joint></robot>`;
    const r = codeOf(text, "cycle.urdf");
    expect(r.code).toBe("ARMB_ERR_URDF_INVALID");
    expect(r.message).toContain("cycle.urdf");
    expect([...(r.details.joints as string[])].sort()).toEqual(["a_to_b", "b_to_a"]);
    expect(r.message).toMatch(/cycle/);
  });

  it("a chain asked of a model with a cycle (built without parseUrdf) is refused, not walked forever", () => {
    const fixed = (name: string, parent: string, child: string) => ({
      name,
      type: "fixed" as const,
      parent,
      child,
      xyz: [0, 0, 0] as const,
      rpy: [0, 0, 0] as const,
      axis: [1, 0, 0] as const,
      limit: undefined,
    });
    const model = {
      name: "r",
      links: new Set(["base", "a", "b"]),
      joints: [fixed("a_to_b", "a", "b"), fixed("b_to_a", "b", "a")],
    };
    expect(() => new KinematicChain(model, "base", "a", "cycle.urdf")).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }),
    );
  });

  it("a longer cycle hanging below a proper tree is found too, and only its joints are named", () => {
    const text = `<robot name="r"><link name="base"/><link name="x"/><link name="p"/><link name="q"/><link name="s"/>
      <joint name="base_x" type="revolute"><parent link="base"/><child link="x"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/></joint>
      <joint name="pq" type="fixed"><parent link="p"/><child link="q"/></joint>
      <joint name="qs" type="fixed"><parent link="q"/><child link="s"/></joint>
      <joint name="sp" type="continuous"><parent link="s"/><child link="p"/></joint></robot>`;
    const r = codeOf(text);
    expect(r.code).toBe("ARMB_ERR_URDF_INVALID");
    expect([...(r.details.joints as string[])].sort()).toEqual(["pq", "qs", "sp"]);
  });

  it.each([
    [
      "an internal entity (it used to be expanded)",
      `<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY n "b">]><robot name="r"><link name="a"/><link name="&n;"/></robot>`,
    ],
    [
      "an external entity (it used to escape as ARMB_ERR_INTERNAL)",
      `<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]><robot name="r"><link name="&x;"/></robot>`,
    ],
    [
      "nested entities (billion laughs)",
      `<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><robot name="r"><link name="&b;"/></robot>`,
    ],
  ])("%s: refused naming the file, nothing expanded", (_what, text) => {
    const r = codeOf(text, "entities.urdf");
    expect(r.code).toBe("ARMB_ERR_URDF_INVALID");
    expect(r.message).toContain("entities.urdf");
    expect(r.message).toMatch(/entit/i);
  });

  it.each([
    ["overflows (1.5e308, 1.5e308, 0): it used to load as [0, 0, 0]", "1.5e308 1.5e308 0", /overflows/],
    ["is too short to have a direction", "1e-12 0 0", /too short/],
  ])("an <axis> whose length %s is refused", (_what, xyz, reason) => {
    const r = codeOf(
      robot(
        `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="${xyz}"/><limit lower="-1" upper="1"/></joint>`,
      ),
    );
    expect(r.code).toBe("ARMB_ERR_URDF_INVALID");
    expect(r.message).toMatch(reason);
  });

  it.each([
    [
      "an origin 1e300 m from its parent (FK and the envelope's sweep bound would overflow to Infinity, then NaN)",
      `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1e300 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/></joint>`,
      /origin xyz="1e300 0 0"/,
    ],
    [
      "a prismatic joint sliding 1e300 m",
      `<joint name="j" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="0" upper="1e300"/></joint>`,
      /slides/,
    ],
  ])("%s is refused", (_what, joint, reason) => {
    const r = codeOf(robot(joint));
    expect(r.code).toBe("ARMB_ERR_URDF_INVALID");
    expect(r.message).toMatch(reason);
  });

  it("a huge but finite axis still normalises exactly (the length is taken after scaling)", () => {
    const m = parseUrdf(
      robot(
        `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="3e200 0 4e200"/><limit lower="-1" upper="1"/></joint>`,
      ),
      "r",
    );
    expect(m.joints[0]!.axis[0]).toBeCloseTo(0.6, 15);
    expect(m.joints[0]!.axis[2]).toBeCloseTo(0.8, 15);
  });

  it("thousands of fixed frames load into one chain with every frame resolved (figures: npm run bench:urdf)", () => {
    const n = 1000;
    const parts = ['<robot name="r"><link name="base"/>'];
    for (let i = 0; i < n; i++)
      parts.push(
        `<link name="f${i}"/><joint name="fj${i}" type="fixed"><parent link="${i === 0 ? "base" : `f${i - 1}`}"/><child link="f${i}"/><origin xyz="0 0 0.001"/></joint>`,
      );
    parts.push(
      `<link name="tip"/><joint name="j" type="revolute"><parent link="f${n - 1}"/><child link="tip"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/></joint></robot>`,
    );
    const chain = new KinematicChain(parseUrdf(parts.join(""), "many.urdf"), "base", "tip", "many.urdf");
    expect(chain.fixedFrames.size).toBe(n + 1);
    expect(chain.fixedFrames.get(`f${n - 1}`)![14]).toBeCloseTo(n * 0.001, 9);
    expect(chain.dof).toBe(1);
  });
});
