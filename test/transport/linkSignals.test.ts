import { describe, expect, it } from "vitest";
import { linkSignals } from "../../src/transport/linkSignals.js";

describe("linkSignals", () => {
  it("aborts when any source aborts", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, b.signal]);
    expect(linked.signal.aborted).toBe(false);
    b.abort();
    expect(linked.signal.aborted).toBe(true);
    linked.dispose();
  });

  it("is aborted at once when a source already is", () => {
    const linked = linkSignals([new AbortController().signal, AbortSignal.abort()]);
    expect(linked.signal.aborted).toBe(true);
  });

  it("after dispose, a source aborting no longer reaches it (nothing left on the long-lived source)", () => {
    const long = new AbortController();
    const linked = linkSignals([long.signal]);
    linked.dispose();
    long.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});
