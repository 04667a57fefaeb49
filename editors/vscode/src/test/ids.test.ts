// The commands activation registers are the ones package.json puts in the palette.
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { PALETTE } from "../ids";

test("the palette's commands are package.json's, each with a title", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const contributed = pkg.contributes.commands as { command: string; title: string }[];
  assert.deepEqual(contributed.map((c) => c.command).sort(), [...PALETTE].sort());
  for (const c of contributed) assert.ok(c.title, c.command);
});

test("every plandash.* setting the extension reads is one package.json declares, and each declared one is read", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const declared = Object.keys(pkg.contributes.configuration.properties).sort();
  const src = path.join(__dirname, "..", "..", "src");
  const read = new Set<string>();
  for (const f of readdirSync(src).filter((n) => n.endsWith(".ts"))) {
    const text = readFileSync(path.join(src, f), "utf8");
    // getConfiguration("plandash").get<T>("name"), and Connection's setting("name").
    for (const m of text.matchAll(/(?:\.get<[^>]+>|\bsetting)\("([A-Za-z]+)"\)/g)) read.add("plandash." + m[1]);
  }
  assert.deepEqual([...read].sort(), declared);
});
