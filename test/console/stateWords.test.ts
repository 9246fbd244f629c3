import { ACTION_STATES } from "../../src/wire/vocabulary.js";
import { describe, expect, it } from "vitest";
import { STATE_WORDS as CONSOLE_WORDS } from "../../console/stateWords.js";
import { STATE_WORDS } from "../../src/ledger/stateWords.js";

describe("the console's state words", () => {
  it("are the server's shared words, state by state", () => {
    for (const s of ACTION_STATES) expect(CONSOLE_WORDS[s], s).toBe(STATE_WORDS[s].word);
  });
});
