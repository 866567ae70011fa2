// Smoke test of mcec with the TypeScript SDK client, driven by cmd/mcec/clients_test.go.
//
//   node sdk-smoke.mjs stdio <mcec binary>   starts `mcec mcp --headless --launch gtk3-widget-factory`
//   node sdk-smoke.mjs http <url of /mcp>    talks to a running `mcec serve` that launched the factory
//
// It lists the tools (each with an outputSchema), waits for the factory's window with `windows`,
// reads its tree with `query`, captures it with `capture` (checking the image block), makes one
// failing `query` (checking isError), hears progress during a `wait-for`, aborts another one
// (the session then says call-cancelled), and reads a linked capture back with resources/read.
// Every result's structuredContent is validated by the SDK against the tool's outputSchema and
// must equal the envelope. Every envelope it sees is printed as one JSON line {step, isError, envelope, image} so
// the Go test can check it against the contract; any failed expectation exits non-zero.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target] = process.argv.slice(2);
if (!target || (mode !== "stdio" && mode !== "http")) {
  console.error("usage: node sdk-smoke.mjs stdio <mcec binary> | http <url>");
  process.exit(2);
}

function fail(msg) {
  console.error(`sdk-smoke (${mode}): ${msg}`);
  process.exit(1);
}

const transport =
  mode === "stdio"
    ? new StdioClientTransport({
        command: target,
        args: ["mcp", "--headless", "--launch", "gtk3-widget-factory"],
        env: { ...process.env },
        stderr: "inherit",
      })
    : new StreamableHTTPClientTransport(new URL(target), {
        // mcec serve's bearer token, as any HTTP client presents it.
        requestInit: process.env.MCEC_TOKEN ? { headers: { Authorization: `Bearer ${process.env.MCEC_TOKEN}` } } : undefined,
      });

const client = new Client({ name: "mcec-sdk-smoke", version: "1.0.0" });
const deadline = Date.now() + 60_000;

// call runs one tool, prints its envelope for the Go side and returns {env, result}.
async function call(step, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content?.[0];
  if (text?.type !== "text") fail(`${step}: first block is ${text?.type}, want text`);
  const env = JSON.parse(text.text);
  const img = result.content.find((b) => b.type === "image");
  const image = img ? { mimeType: img.mimeType, bytes: Buffer.from(img.data, "base64").length, png: Buffer.from(img.data, "base64").subarray(1, 4).toString() === "PNG" } : null;
  console.log(JSON.stringify({ step, isError: result.isError === true, envelope: text.text, image }));
  if ((result.isError === true) !== (env.ok === false)) fail(`${step}: isError=${result.isError} but ok=${env.ok}`);
  // The SDK validated structuredContent against the tool's outputSchema; it is the envelope.
  if (JSON.stringify(result.structuredContent) !== JSON.stringify(env)) fail(`${step}: structuredContent is not the envelope`);
  return { env, result, image };
}

const pause = () => new Promise((r) => setTimeout(r, 100)); // polls a condition under the deadline

try {
  await client.connect(transport);
  if (!client.getInstructions()?.includes("observe")) fail("initialize carries no agent guidance");

  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const want of ["windows", "query", "capture"]) {
    if (!byName[want]?.inputSchema) fail(`tools/list lacks ${want}`);
  }
  if (byName.windows.annotations?.readOnlyHint !== true) fail("windows is not annotated read-only");
  for (const t of tools) {
    if (t.outputSchema?.type !== "object") fail(`${t.name} advertises no outputSchema`);
  }

  let pid = 0;
  while (!pid) {
    const { env } = await call("windows", "windows", { process: "gtk3-widget-factory" });
    if (!env.ok) fail(`windows: ${JSON.stringify(env.error)}`);
    if (env.result.windows.length === 1) pid = env.result.windows[0].processId;
    else if (Date.now() > deadline) fail("gtk3-widget-factory never appeared");
    else await pause();
  }

  // The tree registers on the accessibility bus a moment after the window maps.
  for (;;) {
    const { env } = await call("query", "query", { pid, maxDepth: 3 });
    if (env.ok) {
      if (!(env.result.nodeCount > 0)) fail("query returned no nodes");
      break;
    }
    if (env.error.code !== "no-accessible-tree" || Date.now() > deadline) fail(`query: ${JSON.stringify(env.error)}`);
    await pause();
  }

  const cap = await call("capture", "capture", { pid, maxWidth: 320 });
  if (!cap.env.ok) fail(`capture: ${JSON.stringify(cap.env.error)}`);
  if (cap.result.content.length !== 2 || !cap.image || cap.image.mimeType !== "image/png" || !cap.image.png) {
    fail("capture did not return a text block and a PNG image block");
  }
  if (cap.env.result.width > 320) fail(`capture is ${cap.env.result.width} wide, want at most 320`);

  const miss = await call("query-missing", "query", { window: "no such window" });
  if (!miss.result.isError || miss.env.error.code !== "window-not-found") fail(`failing query: ${JSON.stringify(miss.env)}`);

  // Progress: a 2.5 s wait that cannot hold reports what it waits for while it runs.
  const heard = [];
  const waited = await client.callTool(
    { name: "wait-for", arguments: { pid, element: { name: "no such element anywhere" }, timeout: 2500 } },
    undefined,
    { onprogress: (p) => heard.push(p) },
  );
  const waitEnv = JSON.parse(waited.content[0].text);
  console.log(JSON.stringify({ step: "wait-progress", isError: waited.isError === true, envelope: waited.content[0].text, image: null }));
  if (waitEnv.error?.code !== "wait-condition-timeout") fail(`wait-for: ${JSON.stringify(waitEnv)}`);
  if (heard.length < 1 || !heard.every((p) => p.message?.startsWith("waiting until ") && p.total === 2.5)) {
    fail(`progress during wait-for: ${JSON.stringify(heard)}`);
  }

  // Cancellation: a 30 s wait aborted after its first progress report ends at once, and the
  // session says why.
  const ac = new AbortController();
  const cancelled = client.callTool(
    { name: "wait-for", arguments: { pid, element: { name: "never there" }, timeout: 30000 } },
    undefined,
    { signal: ac.signal, onprogress: () => ac.abort() },
  );
  const abortedAt = Date.now();
  await cancelled.then(() => fail("the aborted call resolved"), () => {});
  for (;;) {
    const st = await call("session-status", "session-status", {});
    if (st.env.result.lastError?.code === "call-cancelled") break;
    if (Date.now() - abortedAt > 5000) fail(`5 s after the abort the session says ${JSON.stringify(st.env.result.lastError)}`);
    await pause();
  }

  // Artifacts as resources: a linked capture reads back byte for byte; a session this client
  // never called in is refused.
  const linked = await call("capture-link", "capture", { pid, maxWidth: 320, link: true });
  const link = linked.result.content.find((b) => b.type === "resource_link");
  if (!linked.env.ok || !link || link.uri !== linked.env.result.uri || linked.env.result.base64 || linked.image) {
    fail(`capture with link: ${JSON.stringify(linked.result.content.map((b) => b.type))} ${JSON.stringify(linked.env.result)}`);
  }
  const read = await client.readResource({ uri: link.uri });
  const bytes = Buffer.from(read.contents[0].blob, "base64");
  if (!bytes.equals(readFileSync(linked.env.result.artifact))) fail("resources/read does not return the artifact's bytes");
  const listed = await client.listResources();
  if (!listed.resources.some((r) => r.uri === link.uri)) fail("resources/list lacks the capture");
  const foreign = link.uri.replace(/session\/[^/]+\//, "session/s-000000000000/");
  await client.readResource({ uri: foreign }).then(() => fail(`read ${foreign}`), () => {});
  console.log(JSON.stringify({ step: "resources", isError: false, envelope: JSON.stringify(linked.env), image: null }));
} catch (err) {
  fail(err?.stack ?? String(err));
} finally {
  await client.close().catch(() => {});
}
