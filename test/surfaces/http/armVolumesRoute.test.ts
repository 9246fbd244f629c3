import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { PLACED_VOLUMES_VIEW, type ArmStateView, type PlacedVolumesView } from "../../../src/wire/index.js";
import { testConfig } from "../../support/testConfig.js";
import { FakeArm } from "./FakeArm.js";

// GET /v1/arm/volumes: the link volumes placed for a pose the console draws as
// a ghost (a call's target). Checked against the volumes GET /v1/state places
// for the arm's own pose: one kinematics draws both.

const TOKEN = "arm-volumes-token-0123456789";

let bridge: Bridge | undefined;
let server: RunningHttpServer | undefined;

async function start(config: ArmConfig): Promise<void> {
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  server = await startHttpServer(bridge, { token: TOKEN, port: 0 });
}

async function get<T>(path: string): Promise<{ status: number; json: T }> {
  const res = await fetch(server!.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, json: (await res.json()) as T };
}

afterEach(async () => {
  await server?.close();
  await bridge?.close();
  server = undefined;
  bridge = undefined;
});

type Volumes = PlacedVolumesView["volumes"];

function byLink(volumes: Volumes): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const v of volumes) out.set(v.link, [...(out.get(v.link) ?? []), JSON.stringify(v.shape)]);
  return new Map([...out].map(([k, v]) => [k, v.join("|")]));
}

describe("GET /v1/arm/volumes", () => {
  it("places the same volumes as /v1/state for the arm's own pose, and moves only the links after a changed joint", async () => {
    await start(testConfig());
    const state = (await get<ArmStateView>("/v1/state")).json;
    const live = state.envelope.volumes;
    expect(live?.length).toBeGreaterThan(3);

    const same = await get<PlacedVolumesView>("/v1/arm/volumes");
    expect(same.status).toBe(200);
    const here = PLACED_VOLUMES_VIEW.parse(same.json);
    expect(here.frame).toBe("base_link");
    expect(here.from_status.sort()).toEqual([
      "elbow",
      "shoulder_lift",
      "shoulder_pan",
      "wrist_1",
      "wrist_2",
      "wrist_3",
    ]);
    expect(here.volumes).toEqual(live);

    const elbow = state.pose.elbow!;
    const bent = PLACED_VOLUMES_VIEW.parse((await get(`/v1/arm/volumes?elbow=${elbow + 0.8}&gripper=0.2`)).json);
    expect(bent.joints.elbow).toBeCloseTo(elbow + 0.8, 9);
    expect(bent.from_status).not.toContain("elbow");
    const before = byLink(here.volumes);
    const after = byLink(bent.volumes);
    // Upstream of the elbow nothing moves; the forearm and everything after it does.
    for (const link of ["base_link", "shoulder_link", "upper_arm_link"])
      expect(after.get(link), link).toBe(before.get(link));
    for (const link of ["forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link"])
      expect(after.get(link), link).not.toBe(before.get(link));
  });

  it("refuses an axis the arm does not have, naming its axes, and a position that is not a number", async () => {
    await start(testConfig());
    const stranger = await get<{ error: { code: string; message: string } }>("/v1/arm/volumes?elbow=0.1&knee=1");
    expect(stranger.status).toBe(400);
    expect(stranger.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
    expect(stranger.json.error.message).toContain("knee");
    expect(stranger.json.error.message).toContain("shoulder_pan");
    const word = await get<{ error: { code: string } }>("/v1/arm/volumes?elbow=bent");
    expect(word.status).toBe(400);
    expect(word.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
  });

  it("answers ARMB_ERR_NO_KINEMATICS (404) for an arm without a URDF", async () => {
    const config = testConfig();
    const config2: ArmConfig = {
      ...config,
      arm: { ...config.arm, urdf: undefined, baseLink: undefined, tipLink: undefined },
      workspace: undefined,
      linkVolumes: {},
    };
    await start(config2);
    const r = await get<{ error: { code: string } }>("/v1/arm/volumes?elbow=0.1");
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("ARMB_ERR_NO_KINEMATICS");
  });
});
