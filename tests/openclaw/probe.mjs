// Ask an installed OpenClaw for the bootstrap context files it builds, case by case.
// Usage: node probe.mjs DIST_DIR < cases.json; each case: {workspace, sessionKey, config}.
// Prints one JSON array: per case, the context files as [basename, content].
// The runtime's bundle names its modules by content hash, so the module and the export alias
// of resolveBootstrapContextForRun are looked up by reading the bundle.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const wanted = "resolveBootstrapContextForRun";
const file = fs
  .readdirSync(dist)
  .filter((name) => name.endsWith(".mjs") || name.endsWith(".js"))
  .find((name) => fs.readFileSync(path.join(dist, name), "utf8").includes(`async function ${wanted}(`));
if (!file) throw new Error(`no module in ${dist} defines ${wanted}`);
const text = fs.readFileSync(path.join(dist, file), "utf8");
const alias = new RegExp(`${wanted} as (\\w+)`).exec(text)?.[1];
const mod = await import(pathToFileURL(path.join(dist, file)).href);
const resolve = mod[alias ?? wanted];
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const out = [];
for (const c of cases) {
  const agentId = c.sessionKey.toLowerCase().split(":")[1] || "main";
  const r = await resolve({
    workspaceDir: c.workspace,
    sessionKey: c.sessionKey,
    sessionId: "probe",
    config: c.config,
    agentId,
    warn: () => {},
  });
  out.push(r.contextFiles.map((f) => [path.basename(f.path), f.content]));
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
