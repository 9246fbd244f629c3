/**
 * bench:images — what a batch of large camera frames costs the bridge.
 *
 * Runs `armbridge serve` (a real process: its RSS is what the machine at the
 * arm pays) on firmware-sim with an HTTP camera serving a structurally whole
 * 19.5 MB PNG, and sends ONE `POST /v1/calls` with 24 `get_camera_image`
 * calls — issue 17's case, which answered HTTP 500 "Invalid string length"
 * after the bridge grew from 191 MB to 1.7 GB. Prints the HTTP status, the
 * answer's size, how many frames were delivered and refused, the wall time,
 * and the bridge's RSS before and at its peak (sampled from /proc every
 * 10 ms). Exit code 1 when the answer is not 200 or carries more picture
 * bytes than the per-response budget.
 *
 * With --posts N, N separate POSTs of one call each are sent at once
 * instead (each its own response budget): the camera's count of snapshots
 * asked shows the bridge's capture bound (one capture per camera in flight,
 * shared by every request meanwhile), and the RSS what it holds.
 *
 *   npm run bench:images [-- --calls N | --posts N]   (default 24 calls in one POST)
 */
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { stringify, parse } from "yaml";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";
import { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { ROUTES } from "../src/wire/routes.js";
import { RESPONSE_IMAGE_BUDGET_BYTES } from "../src/cameras/ImageBudget.js";
import { DEFAULT_CONFIG_PATH } from "../src/config/loadConfig.js";
import { killLiveServeChildren, spawnServe } from "./crashloop/ServeChild.js";

const PNG_BYTES = 19_500_000;

/** Signature, IHDR, one IDAT of filler, IEND: what the bridge checks a PNG for (it never decodes it). */
function bigPng(size: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(4000, 0);
  ihdr.writeUInt32BE(3000, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.alloc(size - 57, 7)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<number> {
  const args = parseArgs({ options: { calls: { type: "string" }, posts: { type: "string" } } }).values;
  const calls = Number(args.calls ?? 24);
  const posts = args.posts === undefined ? undefined : Number(args.posts);
  let snapshots = 0;
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bench-images-"));
  const png = bigPng(PNG_BYTES);
  const camera = createServer((_req, res) => {
    snapshots++;
    res.writeHead(200, { "content-type": "image/png", "content-length": png.length }).end(png);
  });
  await new Promise<void>((r) => camera.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(camera.address() as { port: number }).port}/snapshot.png`;
  const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as { arm: { urdf: string } } & Record<string, unknown>;
  raw.arm.urdf = join(dirname(DEFAULT_CONFIG_PATH), raw.arm.urdf);
  raw.cameras = [{ name: "big", source: { http: url, timeout_ms: 20_000 }, stale_after_ms: 60_000 }];
  raw.timeouts_ms = { ...(raw.timeouts_ms as object), get_camera_image: 30_000 };
  delete raw.scene;
  const configPath = join(dir, "big-camera.yaml");
  writeFileSync(configPath, stringify(raw));
  const sim = await spawnSimulator({
    link: "tcp",
    seed: 1,
    effectsLog: join(dir, "effects.jsonl"),
    logFile: join(dir, "sim.log"),
    flags: ["--config", configPath],
  });
  const token = "bench-images-token-0123456789";
  process.once("exit", killLiveServeChildren);
  const serve = await spawnServe({
    link: sim.link,
    dataDir: join(dir, "data"),
    token,
    logFile: join(dir, "bridge.log"),
    logLevel: "warn",
    readyTimeoutMs: 60_000,
    config: configPath,
  });
  // Raw answers (send, not call): the bench prints the answer's size and status as they came.
  const client = new ArmbridgeClient({ url: serve.url, token });
  try {
    const before = rssMb(serve.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(serve.pid))), 10);
    if (posts !== undefined)
      return await separatePosts(
        client,
        posts,
        () => snapshots,
        () => peak,
        before,
        sampler,
      );
    const t0 = performance.now();
    const res = await client.send(
      "calls",
      undefined,
      JSON.stringify({
        calls: Array.from({ length: calls }, (_, i) => ({
          id: `img-${i}`,
          name: "get_camera_image",
          args: { camera: "big" },
        })),
        deadline_ms: 120_000,
      }),
      JSON_BODY,
    );
    const text = await res.text();
    const ms = performance.now() - t0;
    clearInterval(sampler);
    let delivered = 0;
    let refused = 0;
    let pictureBytes = 0;
    if (res.status === 200) {
      const body = JSON.parse(text) as {
        responses: { parts?: { inlineData: { data: string } }[]; response: { output?: { error_code?: string } } }[];
      };
      for (const r of body.responses) {
        if (r.parts) delivered++;
        for (const p of r.parts ?? []) pictureBytes += Buffer.byteLength(p.inlineData.data, "base64");
        if (r.response.output?.error_code === "ARMB_ERR_IMAGE_BUDGET") refused++;
      }
    }
    console.log(
      `bench:images — ${calls} get_camera_image calls in one ${ROUTES.calls.method} ${ROUTES.calls.path}, a ${(PNG_BYTES / 1e6).toFixed(1)} MB PNG each, budget ${RESPONSE_IMAGE_BUDGET_BYTES / 1048576} MiB per response`,
    );
    console.log(
      `HTTP ${res.status}, answer ${(text.length / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(1)} s; frames delivered ${delivered}, refused over the budget ${refused}, picture bytes ${(pictureBytes / 1e6).toFixed(1)} MB`,
    );
    console.log(
      `bridge RSS: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak (+${(peak - before).toFixed(0)} MB)`,
    );
    return res.status === 200 && pictureBytes <= RESPONSE_IMAGE_BUDGET_BYTES ? 0 : 1;
  } finally {
    await serve.stop(5000);
    await sim.stop(3000);
    await new Promise<void>((r) => camera.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const JSON_BODY = { headers: { "content-type": "application/json" } };

async function separatePosts(
  client: ArmbridgeClient,
  posts: number,
  snapshots: () => number,
  peak: () => number,
  before: number,
  sampler: NodeJS.Timeout,
): Promise<number> {
  const t0 = performance.now();
  const answers = await Promise.all(
    Array.from({ length: posts }, (_, i) =>
      client
        .send(
          "calls",
          undefined,
          JSON.stringify({
            calls: [{ id: `post-${i}`, name: "get_camera_image", args: { camera: "big" } }],
            deadline_ms: 120_000,
          }),
          JSON_BODY,
        )
        .then(async (r) => ({ status: r.status, length: (await r.text()).length })),
    ),
  );
  const ms = performance.now() - t0;
  clearInterval(sampler);
  console.log(
    `bench:images — ${posts} POSTs of one get_camera_image each, at once, a ${(PNG_BYTES / 1e6).toFixed(1)} MB PNG`,
  );
  console.log(
    `${answers.filter((a) => a.status === 200).length} answered 200 in ${(ms / 1000).toFixed(1)} s; the camera was asked for ${snapshots()} snapshots`,
  );
  console.log(
    `bridge RSS: ${before.toFixed(0)} MB before, ${peak().toFixed(0)} MB at the peak (+${(peak() - before).toFixed(0)} MB)`,
  );
  return answers.every((a) => a.status === 200) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
