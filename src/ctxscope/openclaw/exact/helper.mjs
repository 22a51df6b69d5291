// ctxscope's exact-mode helper: loads an installed OpenClaw once and answers, one JSON line per
// request on stdin, with what that runtime itself builds for a session: the bootstrap context
// files, the system prompt and (for a spawned subagent) the first user message.
//
// Usage: node helper.mjs DIST_DIR
// First line out: {"ready": true, "version", "functions": {...}, "missing": [...]} or
//                 {"ready": false, "error"}.
// Each request:   {"id", "workspace", "sessionKey", "agentId", "config", "promptMode", "tools",
//                  "model", "channel", "thinking", "timezone", "bootstrapMode", "subagent"}
// Each answer:    {"id", "ok": true, "files": [[path, content]] (the context files the prompt
//                  holds), "systemPrompt", "taskMessage"} or {"id", "ok": false, "error"}.
//
// The runtime's bundle names its modules by content hash, so functions are found by reading
// the bundle; one the bundle does not export is exposed by a loader hook that appends an export
// to the module's text as it loads (the install itself is never changed). Nothing here starts
// a gateway, opens a listener or calls a model: only pure builders are called.
import fs from "node:fs";
import { register } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const say = (value) => process.stdout.write(JSON.stringify(value) + "\n");

function fail(error) {
  say({ ready: false, error });
  process.exit(0);
}

if (!dist || !fs.existsSync(dist)) fail(`no OpenClaw dist folder at ${dist}`);
let version = "unknown";
try {
  version = JSON.parse(fs.readFileSync(path.join(dist, "..", "package.json"), "utf8")).version;
} catch {
  // A dist folder without its package.json: the version stays unknown.
}

const modules = fs.readdirSync(dist).filter((n) => n.endsWith(".mjs") || n.endsWith(".js"));
const WANTED = {
  resolve: ["resolveBootstrapContextForRun"],
  prompt: ["buildConfiguredAgentSystemPrompt", "buildAgentSystemPrompt"],
  heartbeat: ["resolveHeartbeatPrompt"],
  bootstrapModes: ["resolveBootstrapMode"],
  injectionStats: ["buildBootstrapInjectionStats"],
  budgetState: ["buildBootstrapBudgetState"],
  notice: ["buildBootstrapPromptWarningNotice"],
  envelope: ["buildSubagentSpawnEnvelope"],
  subagentPrompt: ["buildSubagentSystemPrompt"],
  timezone: ["resolveUserTimezone"],
  dateStamp: ["formatDateStamp"],
  docsPath: ["resolveOpenClawDocsPath"],
  skills: ["buildSkillSnapshot", "buildWorkspaceSkillSnapshot"],
  aliases: ["buildModelAliasLines"],
  catalog: ["getPreparedModelCatalogOwnerSnapshot"],
  sessionMode: ["resolvePromptModeForSession"],
  isSubagentKey: ["isSubagentSessionKey"],
  isCronKey: ["isCronSessionKey"],
};

// The runner's workspace note while BOOTSTRAP.md is loaded (a reminder to commit edits), read
// from the runner's own code, as it hands it to the builder.
const WORKSPACE_NOTE =
  /name === (?:"BOOTSTRAP\.md"|DEFAULT_BOOTSTRAP_FILENAME) && !file\.missing\)\)?\s*(?:\?\s*\[|workspaceNotes\.push\()\s*"([^"\\]+)"/;
let workspaceNote = null;

// Where each wanted function is defined: prefer a module that exports it.
const found = {};
for (const name of modules) {
  const text = fs.readFileSync(path.join(dist, name), "utf8");
  workspaceNote ??= WORKSPACE_NOTE.exec(text)?.[1] ?? null;
  for (const [key, candidates] of Object.entries(WANTED)) {
    for (const [rank, fn] of candidates.entries()) {
      if (!text.includes(`function ${fn}(`)) continue;
      const alias = new RegExp(`\\b${fn} as (\\w+)`).exec(text)?.[1] ?? null;
      const prev = found[key];
      const better =
        !prev || rank < prev.rank || (rank === prev.rank && alias && !prev.alias);
      if (better) found[key] = { file: name, fn, alias, rank };
    }
  }
}
if (!found.resolve || !found.prompt) {
  fail(
    `OpenClaw ${version} at ${dist}: no ${!found.resolve ? "bootstrap loader (resolveBootstrapContextForRun)" : "system prompt builder (buildAgentSystemPrompt)"} found`,
  );
}

const extra = {};
for (const spot of Object.values(found)) {
  if (spot.alias) continue;
  const url = pathToFileURL(path.join(dist, spot.file)).href;
  spot.alias = `__ctxscope_${spot.fn}`;
  extra[url] = [...(extra[url] ?? []), `${spot.fn} as ${spot.alias}`];
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

const fns = {};
try {
  for (const [key, spot] of Object.entries(found)) {
    const mod = await import(pathToFileURL(path.join(dist, spot.file)).href);
    fns[key] = mod[spot.alias];
  }
} catch (err) {
  fail(`OpenClaw ${version}: loading its modules failed: ${err?.message ?? err}`);
}
const missing = Object.keys(WANTED).filter((key) => typeof fns[key] !== "function");
say({
  ready: true,
  version,
  functions: Object.fromEntries(Object.entries(found).map(([k, v]) => [k, `${v.fn} (${v.file})`])),
  missing,
});

function subagentParts(req) {
  const s = req.subagent;
  if (!s) return { extra: undefined, message: null };
  if (fns.envelope) {
    const env = fns.envelope({
      completionMode: "announce",
      spawnMode: "run",
      task: s.task,
      requesterSessionKey: s.requesterSessionKey,
      requesterOrigin: s.requesterChannel ? { channel: s.requesterChannel } : undefined,
      childSessionKey: req.sessionKey,
      label: s.label || undefined,
      acpEnabled: false,
      nativeCommandGuidanceLines: [],
      childDepth: s.depth,
      maxSpawnDepth: s.maxDepth,
    });
    return { extra: env.systemPrompt, message: env.message };
  }
  if (fns.subagentPrompt) {
    const text = fns.subagentPrompt({
      requesterSessionKey: s.requesterSessionKey,
      requesterOrigin: s.requesterChannel ? { channel: s.requesterChannel } : undefined,
      childSessionKey: req.sessionKey,
      label: s.label || undefined,
      task: s.task,
      childDepth: s.depth,
      maxSpawnDepth: s.maxDepth,
    });
    return { extra: text, message: null };
  }
  return { extra: undefined, message: null };
}

const packageDir = path.resolve(dist, "..");

// The model catalog that holds the configured aliases is prepared by a running gateway; without
// one, the aliases ctxscope read from agents.defaults.models are handed to the builder as such a
// catalog would hand them (the wording of the section stays the runtime's).
function aliasOwner(req) {
  const aliases = (req.modelAliases ?? []).map(([alias, ref]) => {
    const cut = ref.indexOf("/");
    return { alias, provider: cut > 0 ? ref.slice(0, cut) : "", model: cut > 0 ? ref.slice(cut + 1) : ref };
  });
  return aliases.length ? { isCurrent: () => true, configuredModelAliases: aliases } : undefined;
}

// A builder input the runtime computes; a function of another release's shape throws.
function quietly(compute) {
  try {
    return compute();
  } catch {
    return undefined;
  }
}

async function skillsPrompt(req) {
  // The skills the runtime lists for this agent (workspace, bundled and managed ones).
  if (!fns.skills || req.promptMode === "none") return undefined;
  try {
    const snap = await fns.skills(req.workspace, { config: req.config, agentId: req.agentId });
    return snap?.prompt || undefined;
  } catch {
    return undefined;
  }
}

async function docsPath(req) {
  if (!fns.docsPath) return undefined;
  try {
    return (
      (await fns.docsPath({
        workspaceDir: req.workspace,
        cwd: packageDir,
        argv1: path.join(packageDir, "openclaw.mjs"),
        moduleUrl: pathToFileURL(path.join(dist, "index.js")).href,
      })) ?? undefined
    );
  } catch {
    return undefined;
  }
}

// The prompt mode the runtime gives a session key (full, or minimal for subagent and cron
// sessions), by its own rule where it has one.
function sessionMode(key) {
  if (fns.sessionMode) return fns.sessionMode(key);
  if (fns.isSubagentKey && fns.isCronKey) {
    return fns.isSubagentKey(key) || fns.isCronKey(key) ? "minimal" : "full";
  }
  return undefined;
}

async function answer(req) {
  const keyMode = sessionMode(req.sessionKey);
  // A mode the scenario forces is a what-if; otherwise the runtime's rule decides.
  if (!req.forcedMode && keyMode) req.promptMode = keyMode;
  const r = await fns.resolve({
    workspaceDir: req.workspace,
    sessionKey: req.sessionKey,
    sessionId: "ctxscope",
    config: req.config,
    agentId: req.agentId,
    warn: () => {},
  });
  let contextFiles = r.contextFiles;
  let notice;
  if (fns.bootstrapModes) {
    // Where the release has bootstrap modes, BOOTSTRAP.md reaches the prompt only while
    // workspace setup is pending in a primary session (mode full).
    if (req.bootstrapMode !== "full") {
      contextFiles = contextFiles.filter((f) => !/(^|[\\/])BOOTSTRAP\.md$/iu.test(f.path.trim()));
    }
    if (fns.injectionStats && fns.budgetState && fns.notice) {
      const stats = fns.injectionStats({
        bootstrapFiles: req.bootstrapMode === "full"
          ? r.bootstrapFiles
          : r.bootstrapFiles.filter((f) => f.name !== "BOOTSTRAP.md"),
        injectedFiles: contextFiles,
      });
      const state = fns.budgetState({ config: req.config, agentId: req.agentId, files: stats });
      notice = fns.notice(state.bootstrapPromptWarning.lines);
    }
  }
  // Mode none: the prompt is the identity line alone; no file reaches it.
  const files = req.promptMode === "none" ? [] : contextFiles.map((f) => [f.path, f.content]);
  const sub = subagentParts(req);
  // The scenario's time zone stands for agents.defaults.userTimezone; the runtime checks it
  // and falls back to the host's.
  const wanted = req.timezone || req.config?.agents?.defaults?.userTimezone;
  const zone = fns.timezone ? fns.timezone(wanted) : wanted;
  const skills = await skillsPrompt(req);
  const runtimeInfo = { agentId: req.agentId, sessionKey: req.sessionKey };
  if (req.model) runtimeInfo.model = req.model;
  if (req.channel) runtimeInfo.channel = req.channel;
  const bootstrapLoaded = r.bootstrapFiles?.some((f) => f.name === "BOOTSTRAP.md" && !f.missing);
  const params = {
    workspaceDir: req.workspace,
    workspaceNotes: workspaceNote && bootstrapLoaded ? [workspaceNote] : undefined,
    contextFiles,
    promptMode: req.promptMode,
    toolNames: req.tools,
    runtimeInfo,
    config: req.config,
    agentId: req.agentId,
    extraSystemPrompt: sub.extra,
    userTimezone: zone || undefined,
    userDate: zone && fns.dateStamp ? fns.dateStamp(Date.now(), zone) : undefined,
    skillsPrompt: skills,
    modelAliasLines: quietly(() => fns.aliases?.(req.config)) ?? [],
    preparedModelRuntime: quietly(() =>
      fns.catalog?.({ config: req.config, agentId: req.agentId, workspaceDir: req.workspace }),
    ) ?? aliasOwner(req),
    docsPath: await docsPath(req),
    reasoningLevel: req.thinking || undefined,
    // The runner hands the heartbeat prompt to the default agent's sessions only.
    heartbeatPrompt:
      req.defaultAgent === false
        ? undefined
        : fns.heartbeat?.(req.config?.agents?.defaults?.heartbeat?.prompt),
  };
  if (fns.bootstrapModes) {
    params.bootstrapMode = req.bootstrapMode === "completed" ? "none" : req.bootstrapMode;
    params.bootstrapTruncationNotice = notice;
  }
  const systemPrompt = fns.prompt(params);
  return { files, systemPrompt, taskMessage: sub.message, promptMode: req.promptMode, keyMode };
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of lines) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    say({ id: null, ok: false, error: `bad request: ${err.message}` });
    continue;
  }
  try {
    say({ id: req.id, ok: true, ...(await answer(req)) });
  } catch (err) {
    say({ id: req.id, ok: false, error: String(err?.stack ?? err).split("\n").slice(0, 3).join(" | ") });
  }
}
process.exit(0);
