import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JointLockTable, LockWaitAborted } from "../../src/executor/arm/JointLockTable.js";

const KEYS = ["joint:a", "joint:b", "joint:c", "joint:d", "gripper", "controller:arm"];

describe("JointLockTable (property-based)", () => {
  it("never lets two holders of one key overlap, grants each key in arrival order, and finishes every call", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            keys: fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }),
            holdMs: fc.integer({ min: 0, max: 3 }),
            arriveMs: fc.integer({ min: 0, max: 4 }),
          }),
          { minLength: 1, maxLength: 14 },
        ),
        async (calls) => {
          const table = new JointLockTable();
          const holders = new Map<string, number>();
          const arrival = new Map<string, number[]>();
          const grants = new Map<string, number[]>();
          let violations = 0;
          let finished = 0;
          let order = 0;
          await Promise.all(
            calls.map(async (c, i) => {
              await new Promise((r) => setTimeout(r, c.arriveMs));
              const myOrder = order++;
              for (const k of c.keys) arrival.set(k, [...(arrival.get(k) ?? []), myOrder]);
              const lease = await table.acquire(c.keys);
              for (const k of c.keys) {
                if ((holders.get(k) ?? 0) > 0) violations++;
                holders.set(k, (holders.get(k) ?? 0) + 1);
                grants.set(k, [...(grants.get(k) ?? []), myOrder]);
              }
              await new Promise((r) => setTimeout(r, c.holdMs));
              for (const k of c.keys) holders.set(k, (holders.get(k) ?? 1) - 1);
              lease.release();
              finished++;
              return i;
            }),
          );
          expect(violations).toBe(0);
          expect(finished).toBe(calls.length);
          for (const [k, arrived] of arrival) expect(grants.get(k)).toEqual(arrived);
          expect(table.heldKeys()).toEqual([]);
          expect(table.waitingCount()).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("runs calls with disjoint keys at the same time", async () => {
    const table = new JointLockTable();
    const a = await table.acquire(["joint:a", "joint:b"]);
    // Resolves while `a` is still held: disjoint keys do not wait.
    const b = await table.acquire(["joint:c", "gripper"]);
    expect(table.heldKeys()).toEqual(["gripper", "joint:a", "joint:b", "joint:c"]);
    a.release();
    b.release();
  });

  it("does not deadlock when callers list the same keys in opposite orders", async () => {
    const table = new JointLockTable();
    const first = await table.acquire(["joint:a"]);
    const ab = table.acquire(["joint:a", "joint:b"]);
    const ba = table.acquire(["joint:b", "joint:a"]);
    first.release();
    (await ab).release();
    (await ba).release();
    expect(table.heldKeys()).toEqual([]);
  });

  it("an aborted wait leaves every queue, is granted nothing, and unblocks those behind it", async () => {
    const table = new JointLockTable();
    const held = await table.acquire(["joint:a"]);
    const controller = new AbortController();
    const waiting = table.acquire(["joint:a", "joint:b"], controller.signal);
    const behind = table.acquire(["joint:b"]);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(LockWaitAborted);
    // joint:b was only queued for, never held: the call behind it now gets it.
    (await behind).release();
    held.release();
    expect(table.waitingCount()).toBe(0);
  });

  it("an already-aborted signal is refused at once", async () => {
    const table = new JointLockTable();
    await expect(table.acquire(["joint:a"], AbortSignal.abort())).rejects.toMatchObject({ canceled: true });
    expect(table.heldKeys()).toEqual([]);
  });

  it("release is idempotent", async () => {
    const table = new JointLockTable();
    const a = await table.acquire(["joint:a"]);
    const b = table.acquire(["joint:a"]);
    a.release();
    a.release();
    const lb = await b;
    const c = table.acquire(["joint:a"]);
    let cGranted = false;
    void c.then(() => (cGranted = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(cGranted).toBe(false);
    lb.release();
    (await c).release();
  });
});
