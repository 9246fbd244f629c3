// Writes docs/config.md from the config schemas (run after a build: npm run docs:config).
import { writeFileSync } from "node:fs";
import { configReference } from "../dist/src/config/configReference.js";

writeFileSync(new URL("../docs/config.md", import.meta.url), configReference());
