import { describe, expect, it } from "vitest";
import { bearerOf, generateToken, tokensMatch } from "../../../src/surfaces/http/bearerToken.js";

describe("bearer tokens", () => {
  it("matches only the exact token", () => {
    expect(tokensMatch("abc", "abc")).toBe(true);
    expect(tokensMatch("abd", "abc")).toBe(false);
    expect(tokensMatch("ab", "abc")).toBe(false);
    expect(tokensMatch("", "abc")).toBe(false);
    expect(tokensMatch(undefined, "abc")).toBe(false);
  });

  it("reads the token of a Bearer header only", () => {
    expect(bearerOf("Bearer t0k")).toBe("t0k");
    expect(bearerOf("bearer  t0k ")).toBe("t0k");
    expect(bearerOf("Basic t0k")).toBeUndefined();
    expect(bearerOf("Bearer")).toBeUndefined();
    expect(bearerOf(undefined)).toBeUndefined();
  });

  it("generates distinct URL-safe tokens", () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });
});
