// The commands activation registers are the ones package.json puts in the palette.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { PALETTE } from "../ids";

test("the palette's commands are package.json's, each with a title", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const contributed = pkg.contributes.commands as { command: string; title: string }[];
  assert.deepEqual(contributed.map((c) => c.command).sort(), [...PALETTE].sort());
  for (const c of contributed) assert.ok(c.title, c.command);
});
