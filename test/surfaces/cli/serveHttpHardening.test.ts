import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "./processes.js";

// `armbridge serve` as a real process: the HTTP port is bound before the arm is
// touched, a foreign Host is refused on a real socket, a wide bind and a short
// token are warned about, and SIGHUP shuts it down like SIGINT.
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping serve HTTP hardening: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** GET with a Host header of our choosing (fetch does not let a caller set it). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(!built)("armbridge serve: HTTP port, Host check, warnings (needs dist: npm run build)", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-serve-http-"));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("says a taken port with its own code and a hint, before any byte goes to the arm", async () => {
    const taken = createServer();
    const takenPort = await listen(taken);
    // A "device" that only counts who connects: the bridge must not get that far.
    let deviceConnections = 0;
    const device = createServer((socket) => {
      deviceConnections++;
      socket.destroy();
    });
    const devicePort = await listen(device);
    try {
      const r = await runCli([
        "serve",
        "--serial",
        `tcp://127.0.0.1:${devicePort}`,
        "--http",
        `127.0.0.1:${takenPort}`,
        "--token",
        "a-long-enough-token-123",
        "--data",
        join(dir, "taken"),
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("ARMB_ERR_HTTP_PORT_IN_USE");
      expect(r.stderr).toContain("--http 127.0.0.1:0");
      expect(r.stdout).toBe("");
      expect(deviceConnections).toBe(0);
    } finally {
      taken.close();
      device.close();
    }
  }, 30_000);

  describe("bound beyond loopback with a short token", () => {
    let sim: ReadyProcess;
    let serve: ReadyProcess;

    beforeAll(async () => {
      sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--seed", "3"]);
      serve = await startReady(CLI, [
        "serve",
        "--serial",
        String(sim.ready.link),
        "--http",
        "0.0.0.0:0",
        "--token",
        "abc",
        "--allow-host",
        "robot.local",
        "--data",
        join(dir, "wide"),
      ]);
    }, 60_000);
    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
    });

    it("warns on stderr and in GET /v1/security", async () => {
      expect(serve.stderr()).toMatch(/warning: the API is bound to 0\.0\.0\.0/);
      expect(serve.stderr()).toMatch(/warning: the API token is 3 characters long/);
      const port = new URL(String(serve.ready.http)).port;
      const res = await fetch(`http://127.0.0.1:${port}/v1/security`, { headers: { authorization: "Bearer abc" } });
      const body = (await res.json()) as {
        loopback_only: boolean;
        warnings: { kind: string }[];
        allowed_hosts: string[];
      };
      expect(body.loopback_only).toBe(false);
      expect(body.warnings.map((w) => w.kind).sort()).toEqual(["bind_beyond_loopback", "short_token"]);
      expect(body.allowed_hosts).toContain("robot.local");
    });

    it("refuses a foreign Host with 421 on the public routes, and answers loopback and --allow-host names", async () => {
      const url = `http://127.0.0.1:${new URL(String(serve.ready.http)).port}`;
      for (const path of ["/healthz", "/console"]) {
        const r = await getWithHost(url, path, "attacker.example");
        expect(r.status, path).toBe(421);
        expect((JSON.parse(r.body) as { error: { code: string } }).error.code).toBe("ARMB_ERR_HTTP_HOST_NOT_ALLOWED");
      }
      expect((await getWithHost(url, "/healthz", "robot.local:8640")).status).toBe(200);
      expect((await getWithHost(url, "/healthz", "localhost")).status).toBe(200);
    });

    it("shuts down cleanly on SIGHUP (a closed terminal)", async () => {
      serve.child.kill("SIGHUP");
      expect(await serve.exited).toBe(0);
    }, 20_000);
  });
});
