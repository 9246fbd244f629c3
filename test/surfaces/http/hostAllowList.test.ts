import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp, type HttpAppOptions } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "host-check-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

let bridge: Bridge | undefined;
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  await bridge?.close();
  app = undefined;
  bridge = undefined;
});

async function appWith(options: Partial<HttpAppOptions> = {}): Promise<FastifyInstance> {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  app = await buildHttpApp(bridge, { token: TOKEN, ...options });
  return app;
}

describe("Host allow-list (DNS rebinding)", () => {
  const routes = ["/healthz", "/console", "/v1/state", "/v1/events", "/metrics", "/v1/no-such-route"];

  it.each(routes)(
    "answers GET %s under a foreign Host with 421 ARMB_ERR_HTTP_HOST_NOT_ALLOWED, token or not",
    async (url) => {
      const a = await appWith();
      for (const host of ["evil.example", "evil.example:8640", "127.0.0.1.evil.example", "localhost.evil.example"]) {
        const res = await a.inject({ method: "GET", url, headers: { ...auth, host } });
        expect(res.statusCode, `${url} Host ${host}`).toBe(421);
        expect(res.json()).toEqual({
          error: { code: "ARMB_ERR_HTTP_HOST_NOT_ALLOWED", message: expect.any(String) as string },
        });
      }
    },
  );

  it("refuses a POST under a foreign Host before it reaches the executor", async () => {
    const a = await appWith();
    const res = await a.inject({
      method: "POST",
      url: "/v1/calls",
      headers: { ...auth, host: "evil.example" },
      payload: { calls: [{ id: "x", name: "move_joints", args: { positions: { elbow: 0.2 } } }] },
    });
    expect(res.statusCode).toBe(421);
    expect(bridge?.ledger.get("x")).toBeUndefined();
    expect(bridge?.ledger.inState("started")).toEqual([]);
  });

  it.each(["localhost", "localhost:8640", "LOCALHOST.", "127.0.0.1:80", "[::1]:8640", "[::1]"])(
    "answers Host %s",
    async (host) => {
      const a = await appWith();
      expect((await a.inject({ method: "GET", url: "/healthz", headers: { host } })).statusCode).toBe(200);
    },
  );

  it("answers the bind address and the names given, and no other", async () => {
    const a = await appWith({ bindHost: "192.0.2.10", allowHosts: ["robot.local"] });
    for (const host of ["192.0.2.10:8640", "robot.local", "Robot.Local:8640"])
      expect((await a.inject({ method: "GET", url: "/healthz", headers: { host } })).statusCode, host).toBe(200);
    for (const host of ["192.0.2.11", "other.local", "robot.local.evil.example"])
      expect((await a.inject({ method: "GET", url: "/healthz", headers: { host } })).statusCode, host).toBe(421);
  });
});

describe("GET /v1/security", () => {
  it("warns about a bind beyond loopback and a short token", async () => {
    const config = loadConfig();
    bridge = await Bridge.start({
      config,
      transport: { kind: "custom", transport: new FakeArm(config) },
      dataDir: ":memory:",
    });
    app = await buildHttpApp(bridge, { token: "abc", bindHost: "0.0.0.0" });
    const res = await app.inject({ method: "GET", url: "/v1/security", headers: { authorization: "Bearer abc" } });
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      bind: string;
      loopback_only: boolean;
      allowed_hosts: string[];
      warnings: { kind: string }[];
    }>();
    expect(body).toMatchObject({ bind: "0.0.0.0", loopback_only: false });
    expect(body.warnings.map((w) => w.kind).sort()).toEqual(["bind_beyond_loopback", "short_token"]);
    expect(body.allowed_hosts).toEqual(expect.arrayContaining(["localhost", "127.0.0.1", "[::1]"]));
  });

  it("has nothing to say on loopback with a long token, and needs the token", async () => {
    const a = await appWith();
    expect((await a.inject({ method: "GET", url: "/v1/security" })).statusCode).toBe(401);
    const res = await a.inject({ method: "GET", url: "/v1/security", headers: auth });
    expect(res.json()).toMatchObject({ bind: "127.0.0.1", loopback_only: true, warnings: [] });
  });
});
