import { describe, expect, it } from "vitest";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";

const robot = (body: string): string => `<?xml version="1.0"?><robot name="r"><link name="a"/><link name="b"/>${body}</robot>`;
const revolute = (extra = ""): string => `<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1"/>${extra}</joint>`;

describe("parseUrdf: a malformed URDF is a coded error naming what is wrong", () => {
  it.each([
    ["not XML", "<robot><link name='a'>", /not well-formed/],
    ["no robot element", `<?xml version="1.0"?><thing/>`, /no <robot>/],
    ["an unsupported joint type", robot(`<joint name="j" type="floating"><parent link="a"/><child link="b"/></joint>`), /type floating/],
    ["an undefined child link", robot(`<joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>`), /child link c is not defined/],
    ["a revolute joint without limits", robot(`<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>`), /needs a <limit>/],
    ["an origin that is not three numbers", robot(revolute(`<origin xyz="0 0"/>`)), /<origin xyz> is "0 0"/],
    ["a zero axis", robot(`<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/><limit lower="-1" upper="1"/></joint>`), /zero <axis>/],
    ["inverted limits", robot(`<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="1" upper="-1"/></joint>`), /limits \[1, -1\]/],
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
    expect(() => new KinematicChain(model, "b", "a", "r.urdf")).toThrow(expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }));
    expect(() => new KinematicChain(model, "a", "nowhere", "r.urdf")).toThrow(expect.objectContaining({ code: "ARMB_ERR_URDF_INVALID" }));
  });

  it("a well-formed joint: origin, normalised axis, limits; the URDF default axis is x", () => {
    const m = parseUrdf(robot(`<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 2 3" rpy="0.1 0.2 0.3"/><axis xyz="0 0 2"/><limit lower="-1" upper="1"/></joint>`), "r");
    expect(m.joints[0]).toMatchObject({ xyz: [1, 2, 3], rpy: [0.1, 0.2, 0.3], axis: [0, 0, 1], limit: { lower: -1, upper: 1 } });
    const d = parseUrdf(robot(`<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>`), "r");
    expect(d.joints[0]).toMatchObject({ xyz: [0, 0, 0], rpy: [0, 0, 0], axis: [1, 0, 0], limit: undefined });
  });
});
