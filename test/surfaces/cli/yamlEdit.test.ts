import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { setYamlKey } from "../../../src/surfaces/cli/yamlEdit.js";

const CONFIG = `# an arm
bus:
  protocol: feetech_sts   # the board
  baud: 1000000
  # calibration: old.json
arm:
  joints:
    - { name: a,  min: -1, max: 1 }
cameras:
  - name: top
    source: { file: top.jpg }
    table:
      z: 0
      points:
        - { image: [1, 2], table: [3, 4] }
# the end
`;

describe("setYamlKey", () => {
  it("adds a key to a block mapping and changes no other byte", () => {
    const out = setYamlKey(CONFIG, ["bus"], "calibration", () => " arm.calibration.json", "arm.yaml");
    expect(out).toBe(CONFIG.replace("  baud: 1000000\n", "  baud: 1000000\n  calibration: arm.calibration.json\n"));
    expect((parse(out) as { bus: { calibration: string } }).bus.calibration).toBe("arm.calibration.json");
  });

  it("replaces a block value in place, comments after it kept", () => {
    const out = setYamlKey(CONFIG, ["cameras", 0], "table", (i) => `\n${i}  z: -0.4\n${i}  points: []`, "arm.yaml");
    expect(out).toContain("    table:\n      z: -0.4\n      points: []\n# the end\n");
    expect(out.slice(0, out.indexOf("    table:"))).toBe(CONFIG.slice(0, CONFIG.indexOf("    table:")));
    expect((parse(out) as { cameras: { table: { z: number } }[] }).cameras[0]!.table.z).toBe(-0.4);
  });

  it("refuses a flow mapping it would have to rewrite", () => {
    expect(() => setYamlKey("bus: { protocol: x }\n", ["bus"], "calibration", () => " c", "f.yaml")).toThrow(
      /add it by hand/,
    );
  });
});
