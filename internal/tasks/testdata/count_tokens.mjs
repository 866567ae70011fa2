// Counts o200k_base tokens (js-tiktoken, the npm package test/clients pins) of tool results.
// Usage: node count_tokens.mjs TEST_CLIENTS_DIR < texts.json, where texts.json is an array of
// arrays of strings (one array per task); prints a JSON array with each task's total.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { Tiktoken } = require("js-tiktoken/lite");
const o200k = require("js-tiktoken/ranks/o200k_base");
const enc = new Tiktoken(o200k.default ?? o200k);
const input = JSON.parse(readFileSync(0, "utf8"));
const totals = input.map((texts) => texts.reduce((n, t) => n + enc.encode(t).length, 0));
process.stdout.write(JSON.stringify(totals) + "\n");
