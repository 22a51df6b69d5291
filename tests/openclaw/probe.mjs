// Ask an installed OpenClaw for the bootstrap context files it builds, case by case.
// Usage: node probe.mjs DIST_DIR < cases.json; each case: {workspace, sessionKey, config,
// promptMode?, tools?, model?}.
// Prints one JSON array: per case, the context files as [basename, content] and, when the case
// names a prompt mode, the length of the system prompt the runtime builds from them.
// The runtime's bundle names its modules by content hash, so the module and the export alias
// of resolveBootstrapContextForRun are looked up by reading the bundle.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const modules = fs.readdirSync(dist).filter((name) => name.endsWith(".mjs") || name.endsWith(".js"));

async function find(wanted) {
  const file = modules.find((name) =>
    fs.readFileSync(path.join(dist, name), "utf8").includes(`function ${wanted}(`),
  );
  if (!file) throw new Error(`no module in ${dist} defines ${wanted}`);
  const text = fs.readFileSync(path.join(dist, file), "utf8");
  const alias = new RegExp(`${wanted} as (\\w+)`).exec(text)?.[1];
  const mod = await import(pathToFileURL(path.join(dist, file)).href);
  return mod[alias ?? wanted];
}

const resolve = await find("resolveBootstrapContextForRun");
const buildPrompt = await find("buildConfiguredAgentSystemPrompt");
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
  const files = r.contextFiles.map((f) => [path.basename(f.path), f.content]);
  let prompt = null;
  if (c.promptMode) {
    // The prompt as the runner builds it: BOOTSTRAP.md only while setup is pending (the
    // file exists) in a primary session.
    const pending = fs.existsSync(path.join(c.workspace, "BOOTSTRAP.md"));
    const contextFiles = r.contextFiles.filter(
      (f) => (c.promptMode === "full" && pending) || !/BOOTSTRAP\.md$/.test(f.path),
    );
    const text = buildPrompt({
      workspaceDir: c.workspace,
      contextFiles,
      promptMode: c.promptMode,
      toolNames: c.tools,
      runtimeInfo: { agentId, sessionKey: c.sessionKey, ...(c.model ? { model: c.model } : {}) },
      config: c.config,
      agentId,
    });
    // The workspace path's length varies from run to run: count where it appears.
    prompt = { chars: text.length, pathCount: text.split(c.workspace).length - 1 };
  }
  out.push({ files, prompt });
}
// Exit once the answer is written (the runtime leaves handles open; a pipe flushes late).
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
