// Ask an installed OpenClaw for the bootstrap context files it builds, case by case.
// Usage: node probe.mjs DIST_DIR < cases.json; each case: {workspace, sessionKey, config,
// promptMode?, tools?, model?}.
// Prints one JSON array: per case, the context files as [basename, content] and, when the case
// names a prompt mode, the system prompt's length and how often the workspace path is in it.
// The runtime's bundle names its modules by content hash, so the functions are looked up by
// reading the bundle; one the bundle does not export is exposed by a loader hook that adds an
// export to the module's text as it is loaded (the install itself is never changed).
import fs from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const modules = fs.readdirSync(dist).filter((name) => name.endsWith(".mjs") || name.endsWith(".js"));
const sources = new Map(modules.map((name) => [name, fs.readFileSync(path.join(dist, name), "utf8")]));

function locate(wanted) {
  // Prefer a module that exports the function; else any that defines it.
  let fallback;
  for (const [name, text] of sources) {
    if (!text.includes(`function ${wanted}(`)) continue;
    const alias = new RegExp(`\\b${wanted} as (\\w+)`).exec(text)?.[1];
    if (alias) return { file: name, alias };
    fallback ??= name;
  }
  return fallback ? { file: fallback, alias: null } : null;
}

// 2026.9 builds the prompt through buildConfiguredAgentSystemPrompt; 2026.2 has only the
// inner buildAgentSystemPrompt. The heartbeat prompt (2026.2) is filled in as the runner does.
const names = {
  resolve: "resolveBootstrapContextForRun",
  prompt: locate("buildConfiguredAgentSystemPrompt")
    ? "buildConfiguredAgentSystemPrompt"
    : "buildAgentSystemPrompt",
  heartbeat: "resolveHeartbeatPrompt",
};
const found = Object.fromEntries(Object.entries(names).map(([key, name]) => [key, locate(name)]));
if (!found.resolve || !found.prompt) throw new Error(`no bootstrap or prompt builder in ${dist}`);
const extra = {};
for (const [key, spot] of Object.entries(found)) {
  if (spot && !spot.alias) {
    const url = pathToFileURL(path.join(dist, spot.file)).href;
    extra[url] = [...(extra[url] ?? []), `${names[key]} as __probe_${key}`];
    spot.alias = `__probe_${key}`;
  }
}
if (Object.keys(extra).length) {
  const hooks = `
    export async function load(url, context, nextLoad) {
      const result = await nextLoad(url, context);
      const names = ${JSON.stringify(extra)}[url];
      if (!names) return result;
      const text = String(result.source) + "\\nexport { " + names.join(", ") + " };\\n";
      return { ...result, source: text };
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
const load = async (key) =>
  found[key] && (await import(pathToFileURL(path.join(dist, found[key].file)).href))[found[key].alias];
const resolve = await load("resolve");
const buildPrompt = await load("prompt");
const heartbeatPrompt = await load("heartbeat");
const bootstrapModes = Boolean(locate("resolveBootstrapMode"));

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
    // The prompt as the runner builds it: where the release has bootstrap modes (2026.9),
    // BOOTSTRAP.md only while setup is pending (the file exists) in a primary session.
    const pending = fs.existsSync(path.join(c.workspace, "BOOTSTRAP.md"));
    const contextFiles = r.contextFiles.filter(
      (f) =>
        !bootstrapModes || (c.promptMode === "full" && pending) || !/BOOTSTRAP\.md$/.test(f.path),
    );
    const text = buildPrompt({
      workspaceDir: c.workspace,
      contextFiles,
      promptMode: c.promptMode,
      toolNames: c.tools,
      runtimeInfo: { agentId, sessionKey: c.sessionKey, ...(c.model ? { model: c.model } : {}) },
      config: c.config,
      agentId,
      heartbeatPrompt: heartbeatPrompt?.(c.config?.agents?.defaults?.heartbeat?.prompt),
    });
    // The workspace path's length varies from run to run: count where it appears.
    prompt = { chars: text.length, pathCount: text.split(c.workspace).length - 1 };
  }
  out.push({ files, prompt });
}
// Exit once the answer is written (the runtime leaves handles open; a pipe flushes late).
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
