// ctxscope's exact-mode helper: loads an installed OpenClaw once and answers, one JSON line per
// request on stdin, with what that runtime itself builds for a session: the bootstrap context
// files, the system prompt, the tools sent beside it and (for a spawned subagent) the first user
// message.
//
// Where the release's embedded runner prepares an attempt in stages (2026.9: setup, skills, tool
// base, bootstrap, bundle tools, tool catalog, system prompt), those stages are called (the
// bootstrap stage, which needs only the tool base, after the tool catalog, so that the stages
// before it can be kept between requests: see `preparedTools`), inside the runtime's own plugin
// scope for a host without a gateway: the runner gathers the
// bootstrap files, workspace notes, heartbeat, skills and tools itself ("runner" strategy). Only
// what a gateway would hand the runner is supplied (session key and id, channel, model, the
// caller, a subagent's spawn envelope), and each answer lists it (`supplied`). A release without
// those stages has its prompt builders called with the inputs ctxscope gathers ("builders").
//
// Usage: node helper.mjs DIST_DIR
// First line out: {"ready": true, "version", "functions": {...}, "missing": [...]} or
//                 {"ready": false, "error"}.
// Each request:   {"id", "workspace", "sessionKey", "agentId", "config", "promptMode", "tools",
//                  "model", "channel", "thinking", "timezone", "bootstrapMode", "subagent"}
//                  and, for a session OpenClaw recorded, "run": {"sessionId", "stateDir",
//                  "shell": {OPENCLAW_SHELL, SHELL}} (the recorded run's identity, see
//                  `inRunStateDir`), else "run": {"shell"} (this machine's shell variables,
//                  which a gateway started here would run with).
// Each answer:    {"id", "ok": true, "strategy", "files": [[path, content]] (the context files
//                  the prompt holds), "systemPrompt", "sha256" (of the prompt before the
//                  transports' edits, as OpenClaw records it; runner only), "report" (the
//                  figures a run records of that prompt; runner only), "standInSessionId" (the
//                  id handed in place of a gateway's; runner only), "taskMessage", "tools":
//                  [[name, description chars, schema chars]] and "deferred" (runner only),
//                  "toolStages" (runner
//                  only: "run", or "kept" when the stages up to the tool catalog were kept
//                  from an earlier answer to the same request), "supplied"} or
//                  {"id", "ok": false, "error"}.
//
// The runtime's bundle names its modules by content hash, so functions are found by reading
// the bundle; one the bundle does not export is exposed by a loader hook that appends an export
// to the module's text as it loads (the install itself is never changed). Nothing here starts
// a gateway, opens a listener or calls a model: only pure builders are called.
import { createHash } from "node:crypto";
import fs from "node:fs";
import * as nodeModule from "node:module";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { Kept, Reads, watchReads } from "./reads.mjs";

const dist = process.argv[2];
// Answers go to standard output, one line each; whatever the runtime itself writes there (its
// log lines) is sent to standard error instead.
const out = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const say = (value) => out(JSON.stringify(value) + "\n");

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

// Modules load under their real path (a linked dist resolves), which the loader hook matches.
const realDist = fs.realpathSync(dist);
// What the runtime reads is noted from here on (see `preparedTools`).
watchReads();
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

// The embedded runner's attempt stages, in the order it runs them, and the runtime's plugin
// scope for a host without a gateway (all in one module for the stages).
const STAGES = [
  "prepareEmbeddedAttemptSetup",
  "prepareEmbeddedSkills",
  "prepareEmbeddedAttemptToolBase",
  "prepareEmbeddedAttemptBootstrap",
  "prepareEmbeddedAttemptBundleTools",
  "prepareEmbeddedAttemptToolCatalog",
  "prepareEmbeddedAttemptSystemPrompt",
];
for (const stage of [...STAGES, "withAgentPluginRegistry"]) WANTED[stage] = [stage];
// A release whose runner prepares an attempt inline (2026.2) sums up each tool it creates for
// its prompt builder's Tooling lines: the tools, and the summaries made from them.
WANTED.codingTools = ["createOpenClawCodingTools"];
WANTED.toolSummaries = ["buildToolSummaryMap"];
// The runtime's own signal that skill files changed (its gateway's watcher sends it): the
// runtime keeps the skills it read until then.
WANTED.skillsChanged = ["bumpSkillsSnapshotVersion"];
// Whether a session runs in the runtime's sandbox (whose preparation would provision one).
WANTED.sandboxStatus = ["resolveSandboxRuntimeStatus"];
// The scope of an operator's turn from the local CLI (what `openclaw agent` runs in).
WANTED.operatorScope = ["createCronCreatorAuthorityCapability"];
WANTED.operatorRun = ["runWithCronCreatorAuthorityCapability"];
// The report a run records of its prompt (sizes and hashes), for the prompt exact mode hands back.
WANTED.promptReport = ["buildSystemPromptReport"];
// What the runner does to the stage's prompt before the run (2026.9): it rebuilds the prompt
// around the model identity line (CRLF turns LF), its cache boundary in place. The boundary
// helper comes from another package: it is found where the runner's module imports it.
WANTED.identityLine = ["buildModelIdentityPromptLine"];
WANTED.identityPrompt = ["appendModelIdentitySystemPrompt"];
WANTED.cacheBoundary = ["ensureSystemPromptCacheBoundary"];
const IMPORTED = new Set(["ensureSystemPromptCacheBoundary"]);
// The config a gateway runs under (its loaded config, which parts of the runner read beside
// the attempt's: the skills' owner among them), set to the request's for each request.
WANTED.runtimeConfig = ["setRuntimeConfigSnapshot"];
// The model runtime a gateway prepares for a run (the plugins' metadata, whose manifests add
// tools to a tool profile; the configured model aliases), and the agent folder it is keyed by.
WANTED.preparedRuntime = ["acquireAgentRunPreparedModelRuntime"];
WANTED.agentDir = ["resolveAgentDir"];
// The gateway machine's name and shell, as the runner names them on the Runtime line (the
// builders are handed them; the runner finds them itself).
WANTED.machineName = ["getMachineDisplayName"];
WANTED.runtimeShell = ["detectRuntimeShell"];

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
  // A module of the command line's entry (2026.2: it starts the CLI again on import) is never
  // loaded.
  if (text.includes('from "./entry.js"')) continue;
  for (const [key, candidates] of Object.entries(WANTED)) {
    for (const [rank, fn] of candidates.entries()) {
      const defined = text.includes(`function ${fn}(`);
      // An imported binding is exported again under a new name (never by the import's alias).
      if (!defined && !(IMPORTED.has(fn) && new RegExp(`import \\{[^}]*\\b${fn}\\b[^}]*\\} from`).test(text))) continue;
      const alias = defined ? (new RegExp(`\\b${fn} as (\\w+)`).exec(text)?.[1] ?? null) : null;
      const prev = found[key];
      const better =
        !prev || rank < prev.rank || (rank === prev.rank && alias && !prev.alias);
      if (better) found[key] = { file: name, fn, alias, rank };
    }
  }
}
const runnerFound = [...STAGES, "withAgentPluginRegistry"].every((k) => found[k]);
if (!runnerFound && (!found.resolve || !found.prompt)) {
  fail(
    `OpenClaw ${version} at ${dist}: no ${!found.resolve ? "bootstrap loader (resolveBootstrapContextForRun)" : "system prompt builder (buildAgentSystemPrompt)"} found`,
  );
}

const extra = {};
for (const spot of Object.values(found)) {
  if (spot.alias) continue;
  const url = pathToFileURL(path.join(realDist, spot.file)).href;
  spot.alias = `__ctxscope_${spot.fn}`;
  extra[url] = [...(extra[url] ?? []), `${spot.fn} as ${spot.alias}`];
}
if (Object.keys(extra).length && typeof nodeModule.registerHooks === "function") {
  // In-thread hooks (Node ≥ 22.15): every later import, the runtime's own lazy ones during
  // each request included, is resolved without a round trip to a hooks thread.
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      const names = extra[url];
      if (!names) return result;
      const text = String(result.source) + "\nexport { " + names.join(", ") + " };\n";
      return { ...result, source: text };
    },
  });
} else if (Object.keys(extra).length) {
  const hooks = `
    export async function load(url, context, nextLoad) {
      const result = await nextLoad(url, context);
      const names = ${JSON.stringify(extra)}[url];
      if (!names) return result;
      const text = String(result.source) + "\\nexport { " + names.join(", ") + " };\\n";
      return { ...result, source: text };
    }`;
  nodeModule.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

// What only the runner strategy uses.
const RUNNER_ONLY = [
  ...STAGES,
  "withAgentPluginRegistry",
  "sandboxStatus",
  "operatorScope",
  "operatorRun",
  "skillsChanged",
  "promptReport",
  "identityLine",
  "identityPrompt",
  "cacheBoundary",
  "runtimeConfig",
  "preparedRuntime",
  "agentDir",
];
// What the runner's stages call on their own (not needed apart when they are found).
const RUNNER_PARTS = Object.fromEntries(
  ["sandboxStatus", "operatorScope", "operatorRun", "codingTools", "toolSummaries", "resolve", "prompt", "heartbeat", "bootstrapModes", "injectionStats", "budgetState", "notice",
    "subagentPrompt", "timezone", "dateStamp", "docsPath", "skills", "aliases", "catalog", "machineName",
    "runtimeShell"].map((k) => [k, true]),
);
// What only the builders strategy uses (the runner makes them itself).
const BUILDERS_ONLY = ["codingTools", "toolSummaries"];
const fns = {};
try {
  for (const [key, spot] of Object.entries(found)) {
    // A release without the runner's stages is asked through its builders alone, and one with
    // them through its runner.
    if (!runnerFound && RUNNER_ONLY.includes(key)) continue;
    if (runnerFound && BUILDERS_ONLY.includes(key)) continue;
    const mod = await import(pathToFileURL(path.join(realDist, spot.file)).href);
    fns[key] = mod[spot.alias];
  }
} catch (err) {
  fail(`OpenClaw ${version}: loading its modules failed: ${err?.message ?? err}`);
}
const runner = [...STAGES, "withAgentPluginRegistry"].every((k) => typeof fns[k] === "function");
const strategy = runner ? "runner" : "builders";
// With the runner's stages, the builders they call are not needed one by one.
const missing = Object.keys(WANTED).filter(
  (key) =>
    typeof fns[key] !== "function" && (runner ? !(key in RUNNER_PARTS) : !RUNNER_ONLY.includes(key)),
);
say({
  ready: true,
  version,
  strategy,
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

// The runner's summaries of the tools it creates for a session, which its builder puts on the
// Tooling lines of tools it has no summary of its own for (2026.2: memory, tts).
function toolSummaries(req) {
  if (!fns.codingTools || !fns.toolSummaries) return undefined;
  const { provider, modelId } = modelOf(req);
  return quietly(() =>
    fns.toolSummaries(
      fns.codingTools({
        config: req.config,
        workspaceDir: req.workspace,
        sessionKey: req.sessionKey,
        messageProvider: req.channel || undefined,
        spawnedBy: req.subagent?.requesterSessionKey,
        senderIsOwner: !req.subagent,
        modelProvider: provider,
        modelId,
        abortSignal: new AbortController().signal,
      }),
    ),
  );
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
  const runtimeInfo = { agentId: req.agentId, sessionKey: req.sessionKey, ...(await machine()) };
  if (req.model) runtimeInfo.model = req.model;
  // The gateway names the configured default model beside the session's.
  if (req.defaultModel) runtimeInfo.defaultModel = req.defaultModel;
  if (req.channel) runtimeInfo.channel = req.channel;
  const bootstrapLoaded = r.bootstrapFiles?.some((f) => f.name === "BOOTSTRAP.md" && !f.missing);
  const params = {
    workspaceDir: req.workspace,
    workspaceNotes: workspaceNote && bootstrapLoaded ? [workspaceNote] : undefined,
    contextFiles,
    promptMode: req.promptMode,
    toolNames: req.tools,
    toolSummaries: toolSummaries(req),
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
    // As the runner hands them: the session's thinking level (the Runtime line's `thinking=`),
    // and the reasoning display, off until a session turns it on.
    defaultThinkLevel: req.thinking || undefined,
    reasoningLevel: "off",
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

// The machine's fields of the Runtime line, as a gateway started on this machine writes them:
// its name and shell by the runtime's own functions where found (the shell from the request's
// shell variables, see `withShell`), the system, architecture and Node version from Node.
async function machine() {
  const name = fns.machineName ? await fns.machineName().catch(() => undefined) : undefined;
  const shell = fns.runtimeShell ? quietly(() => fns.runtimeShell()) : undefined;
  return {
    host: name || os.hostname(),
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    node: process.version,
    ...(shell ? { shell } : {}),
  };
}

// The model the gateway would resolve for the run: the config's provider entry for it, else
// what the request names (its transport api as ctxscope reads it).
function modelOf(req) {
  const ref = req.model || "";
  const cut = ref.indexOf("/");
  const provider = cut > 0 ? ref.slice(0, cut) : "openai";
  const modelId = cut > 0 ? ref.slice(cut + 1) : ref || "default";
  const entry = req.config?.models?.providers?.[provider] ?? {};
  const listed = (entry.models ?? []).find((m) => m?.id === modelId) ?? {};
  return {
    provider,
    modelId,
    model: {
      contextWindow: 200000,
      maxTokens: 8192,
      input: ["text"],
      reasoning: false,
      name: modelId,
      ...listed,
      id: modelId,
      provider,
      api: listed.api ?? entry.api ?? req.api ?? "openai-responses",
      baseUrl: listed.baseUrl ?? entry.baseUrl ?? "http://127.0.0.1:9/v1",
    },
  };
}

const chars = (text) => (typeof text === "string" ? [...text].length : 0);

// The runner's stages up to its tool catalog (setup, skills, tool base, bundle tools, tool
// catalog) depend on the request and on what they read from disk (skills, plugins, programs on
// PATH, the workspace folder), not on the bootstrap files: they are kept per request, and run
// again once any file, folder or program they looked at answers differently (`reads.mjs`), or
// the day changes. So a rebuild after a context file is saved runs only the bootstrap and
// system prompt stages. The bootstrap stage, which needs only the tool base, runs after them.
// Left out of what is watched: the helper's private home (ctxscope starts it with an empty one,
// holding the runtime's state folder, which only the runtime writes) and the installed package
// with the modules installed beside it (the code already loaded).
const owned = [process.env.HOME, packageDir];
if (path.basename(path.dirname(packageDir)) === "node_modules") owned.push(path.dirname(packageDir));
for (const folder of [...owned]) owned.push(quietly(() => fs.realpathSync(folder)));
owned.splice(0, owned.length, ...new Set(owned.filter((f) => f && path.dirname(f) !== f)));
const keptTools = new Kept(16, (tools) => tools.abort.abort());

async function preparedTools(req, attempt, admitted) {
  const { id, ...asked } = req;
  const key = JSON.stringify([asked, new Date().toDateString()]);
  const kept = keptTools.get(key);
  if (kept) return { ...kept, stages: "kept" };
  const reads = new Reads(owned).start();
  // Something the stages read changed, or they were never run for this request: the runtime is
  // told its skills may have changed, as its gateway's watcher would tell it, or it would list
  // the skills it read before (it reads them again here, so this is recorded too).
  quietly(() => fns.skillsChanged?.({ reason: "watch-unavailable" }));
  let skills;
  try {
    // Setup resolves the workspace and sandbox outside an admitted run; the later stages read
    // the run's (empty) admission.
    const setup = await fns.prepareEmbeddedAttemptSetup(attempt);
    skills = await fns.prepareEmbeddedSkills({
      assertCurrent: () => {},
      includeCodeModeSkills: true,
      attempt: admitted,
      effectiveWorkspace: setup.effectiveWorkspace,
      sandbox: setup.sandbox,
      sessionAgentId: setup.sessionAgentId,
    });
    const abort = new AbortController();
    const refuse = () => {
      throw new Error("exact mode runs no tool");
    };
    const toolBase = await fns.prepareEmbeddedAttemptToolBase({
      agentDir: undefined,
      attempt: admitted,
      setup,
      markCoreToolStage: () => {},
      onYield: () => {},
      runAbortController: abort,
      runTrace: undefined,
      skillUsagePaths: skills.skillUsagePaths,
      skillReadResources: skills.skillReadResources,
      skillsSnapshot: skills.skillsSnapshotForRun,
      codeModeSkills: skills.codeModeSkills,
      reviewTranscript: () => undefined,
      toolSearchCatalogExecutor: refuse,
    });
    const bundle = await fns.prepareEmbeddedAttemptBundleTools({
      agentDir: undefined,
      attempt: admitted,
      setup,
      isRawModelRun: false,
      preparedToolBase: toolBase,
    });
    const catalog = fns.prepareEmbeddedAttemptToolCatalog({
      attempt: admitted,
      setup,
      preparedToolBase: toolBase,
      bundleTools: {
        clientTools: bundle.clientTools,
        uncompactedEffectiveTools: bundle.uncompactedEffectiveTools,
      },
      abortSignal: abort.signal,
      executeCodeModeTool: refuse,
    });
    const visible = new Set(catalog.effectiveTools.map((t) => t.name));
    const entries = toolBase.toolSearchCatalogRef?.current?.entries ?? [];
    const tools = {
      setup,
      skills,
      toolBase,
      catalog,
      abort,
      sent: catalog.effectiveTools.map((t) => [
        t.name,
        chars(t.description),
        chars(JSON.stringify(t.parameters ?? {})),
      ]),
      deferred: [...new Set(entries.map((e) => e?.name).filter((n) => n && !visible.has(n)))],
    };
    keptTools.set(key, tools, reads.stop());
    return { ...tools, stages: "run" };
  } finally {
    reads.stop();
    skills?.restoreSkillEnv?.();
  }
}

async function runnerAnswer(req) {
  // As a gateway does with the config it loaded: without it, the runtime would load its own
  // from exact mode's private (empty) state folder.
  asRuntimeConfig(req);
  // The runner's setup provisions a sandboxed session's sandbox (a container, a copy of the
  // workspace): never done here. Such a session gets the prompt builders, and says so.
  const sandboxed =
    !fns.sandboxStatus ||
    quietly(
      () => fns.sandboxStatus({ cfg: req.config, agentId: req.agentId, sessionKey: req.sessionKey })
        ?.sandboxed,
    ) !== false;
  if (sandboxed && fns.resolve && fns.prompt) {
    const built = await withShell(req.run?.shell, () => answer(req));
    const why = fns.sandboxStatus
      ? "the session runs in the runtime's sandbox, which exact mode never provisions"
      : "the runtime's sandbox rule was not found, and exact mode never provisions a sandbox";
    return { ...built, strategy: "builders", supplied: [`${why}: its prompt builders were given ctxscope's inputs`] };
  }
  const keyMode = sessionMode(req.sessionKey);
  const sub = subagentParts(req);
  const { provider, modelId, model } = modelOf(req);
  const recorded = req.run ?? {};
  const sessionId = recorded.sessionId || "ctxscope";
  const supplied = [
    `session key ${req.sessionKey}`,
    `session id ${sessionId}`,
    ...(req.cwd ? [`working directory ${req.cwd}`] : []),
    ...(recorded.stateDir ? [`the run's state folder ${recorded.stateDir} in the prompt's paths`] : []),
    ...(recorded.shell ? [`the shell variables ${JSON.stringify(recorded.shell)} (the Runtime line's shell)`] : []),
    req.channel ? `channel ${req.channel}` : "no channel",
    `model ${provider}/${modelId} (${model.api})`,
    req.subagent
      ? `the spawn envelope (requester ${req.subagent.requesterSessionKey})`
      : fns.operatorScope && fns.operatorRun
        ? "the caller: the owner, in an operator's turn on the local CLI"
        : "the caller: the owner on the local CLI, with no operator turn (tools that need one are left out)",
  ];
  const attempt = {
    config: req.config,
    sessionKey: req.sessionKey,
    sessionId,
    runId: "ctxscope",
    agentId: req.agentId,
    workspaceDir: req.workspace,
    ...(req.cwd ? { cwd: req.cwd } : {}),
    provider,
    modelId,
    model,
    thinkLevel: req.thinking || "off",
    reasoningLevel: req.thinking || undefined,
    timeoutMs: 60000,
    messageChannel: req.channel || undefined,
    trigger: "user",
    prompt: "",
    ...(req.subagent
      ? {
          spawnedBy: req.subagent.requesterSessionKey,
          extraSystemPrompt: sub.extra,
          senderIsOwner: false,
          githubPublicationAvailable: false,
        }
      : { senderIsOwner: true, gatewayCallerLocal: true, githubPublicationAvailable: false }),
    ...(req.forcedMode ? { promptMode: req.promptMode } : {}),
  };
  // The gateway's prepared model runtime for the run, where this Node can build it.
  const prepared = await preparedRuntime(req, provider, modelId, supplied);
  if (prepared) attempt.preparedModelRuntime = prepared;
  const run = async () => {
    const admitted = { ...attempt, admittedRunContext: {} };
    const tools = await preparedTools(req, attempt, admitted);
    const { setup, skills, toolBase, catalog } = tools;
    const bootstrap = await fns.prepareEmbeddedAttemptBootstrap({
      attempt: admitted,
      setup,
      hasReadTool: toolBase.toolsEnabled && toolBase.toolsRaw.some((t) => t.name === "read"),
      isRawModelRun: false,
    });
    const prompt = await fns.prepareEmbeddedAttemptSystemPrompt({
      activeContextEngine: undefined,
      attempt: admitted,
      setup,
      bootstrap,
      capabilityToolNames: catalog.toolSearchRunPlan.capabilityToolNames,
      requireExplicitMessageTarget: toolBase.requireExplicitMessageTarget,
      effectiveTools: catalog.effectiveTools,
      isRawModelRun: false,
      modelToolsEnabled: toolBase.toolsEnabled,
      skillsPrompt: skills.skillsPrompt,
      codeModeActive: toolBase.codeModeControlsEnabledForRun,
      toolSearchCatalogRef: toolBase.toolSearchCatalogRef,
      toolSearchDirectoryEnabled:
        toolBase.toolSearchControlsEnabledForRun && catalog.toolSearch.catalogRegistered,
      toolSearchRuntimeConfig: toolBase.toolSearchRuntimeConfig,
    });
    const systemPrompt = inRunStateDir(
      modelAware(prompt.systemPromptText, prompt.runtimeInfo?.model),
      recorded.stateDir,
    );
    const skillsText = inRunStateDir(skills.skillsPrompt ?? "", recorded.stateDir);
    return {
      strategy: "runner",
      files: bootstrap.contextFiles.map((f) => [f.path, f.content]),
      systemPrompt,
      sha256: createHash("sha256").update(systemPrompt, "utf8").digest("hex"),
      report: promptFigures(systemPrompt, skillsText, catalog.effectiveTools),
      taskMessage: sub.message,
      tools: tools.sent,
      deferred: tools.deferred,
      toolStages: tools.stages,
      // The id handed in place of a gateway's (which makes a UUID), when no run recorded one.
      standInSessionId: recorded.sessionId ? undefined : sessionId,
      promptMode: req.forcedMode || !keyMode ? req.promptMode : keyMode,
      keyMode,
      supplied,
    };
  };
  // A main session runs as an operator's turn on the local CLI, where the runtime has that scope.
  const scope =
    !req.subagent && fns.operatorScope && fns.operatorRun
      ? quietly(() => fns.operatorScope(attempt.runId, { kind: "local" }))
      : undefined;
  const scoped = scope ? () => fns.operatorRun(scope, run) : run;
  return await withShell(recorded.shell, () =>
    fns.withAgentPluginRegistry({
      config: req.config,
      workspaceDir: req.workspace,
      env: process.env,
      run: scoped,
    }),
  );
}

// The model runtime the gateway prepares before a run, from a lease the runtime gives on it.
// Building one takes the runtime's Node ≥ 24 (its AsyncDisposableStack); on an older Node the
// run goes without it, and `supplied` says what that leaves out. A lease is kept for later
// requests with the same inputs, as a gateway keeps its prepared runtime between runs (the
// oldest of more than LEASES_KEPT is released).
const LEASES_KEPT = 8;
const leases = new Map();
async function preparedRuntime(req, provider, modelId, supplied) {
  if (!fns.preparedRuntime || !fns.agentDir) return undefined;
  if (typeof globalThis.AsyncDisposableStack !== "function") {
    supplied.push(
      `no prepared model runtime (Node ${process.versions.node} cannot build it; the runtime's gateway runs on Node 24 or later): tools that plugins add to a tool profile and the configured model aliases are left out`,
    );
    return undefined;
  }
  const input = {
    config: req.config,
    agentId: req.agentId,
    agentDir: fns.agentDir(req.config, req.agentId),
    workspaceDir: req.workspace,
    runtimePluginSelections: [{ provider, modelId, agentId: req.agentId }],
  };
  const key = JSON.stringify(input);
  let lease = leases.get(key);
  if (!lease) {
    lease = fns.preparedRuntime(input, { catalogMode: "static" });
    leases.set(key, lease);
    lease.catch(() => leases.delete(key));
    if (leases.size > LEASES_KEPT) {
      const [oldest, kept] = leases.entries().next().value;
      leases.delete(oldest);
      kept.then((old) => old[Symbol.asyncDispose]?.(), () => {});
    }
  }
  return (await lease).snapshot;
}

// The request's config as the runtime's own (its config snapshot). Set again only when it
// changes: each setting starts a new revision, which the runtime's caches are keyed by. A
// request with the same config gets the object set before, as a gateway's runs share one.
let runtimeConfigSet = { text: undefined, config: undefined };
function asRuntimeConfig(req) {
  if (!fns.runtimeConfig) return;
  const text = JSON.stringify(req.config ?? {});
  if (text !== runtimeConfigSet.text) {
    runtimeConfigSet = { text, config: req.config ?? {} };
    fns.runtimeConfig(runtimeConfigSet.config);
  }
  if (req.config) req.config = runtimeConfigSet.config;
}

// The prompt as the runner hands it to the run (prepareEmbeddedAttemptPromptAssembly): rebuilt
// around the model identity line of the stage's runtime model, with its cache boundary.
function modelAware(text, model) {
  if (!fns.identityPrompt || !fns.identityLine || !fns.cacheBoundary) return text;
  return fns.identityPrompt({
    systemPrompt: fns.identityLine(model) && text.trim().length > 0 ? fns.cacheBoundary(text) : text,
    model,
  });
}

// A recorded run's identity (`req.run`), for a prompt whose sha256 can equal the one OpenClaw
// recorded: its session id (the Runtime line names it), the shell variables its gateway ran
// with (the Runtime line's `shell=`, from OPENCLAW_SHELL, else SHELL), and its
// state folder as the gateway's prompt shows it. The runtime places the skills its plugins
// bring under `<state folder>/plugin-skills/`; it is given exact mode's private state folder
// (never the user's, where it would write), whose place in those paths the run's takes.
const privateState = process.env.OPENCLAW_STATE_DIR || "";
const privateHome = process.env.HOME || "";
const privateShown = [
  privateState,
  privateHome && privateState.startsWith(privateHome + path.sep)
    ? "~" + privateState.slice(privateHome.length)
    : "",
].filter(Boolean);

function inRunStateDir(text, stateDir) {
  if (!stateDir || typeof text !== "string") return text;
  let out = text;
  for (const shown of privateShown) {
    out = out.split(`<location>${shown}/plugin-skills/`).join(`<location>${stateDir}/plugin-skills/`);
  }
  return out;
}

// The figures a run records of its prompt, by the runtime's own report builder, for the prompt
// and skills list handed back: systemPrompt (chars, hash, project context and the rest), skills
// (chars, hash, entries), tools (schema chars). Null where the release has no such builder.
function promptFigures(systemPrompt, skillsPrompt, tools) {
  if (!fns.promptReport) return null;
  const made = quietly(() => fns.promptReport({ systemPrompt, skillsPrompt, tools, injectedWorkspaceFiles: [] }));
  if (!made) return null;
  return {
    systemPrompt: made.systemPrompt,
    skills: { promptChars: made.skills?.promptChars, hash: made.skills?.hash, entries: made.skills?.entries },
    tools: { schemaChars: made.tools?.schemaChars },
  };
}

// The shell variables for the length of one request (unset where `shell` lacks one).
async function withShell(shell, work) {
  if (!shell || typeof shell !== "object") return await work();
  const names = ["OPENCLAW_SHELL", "SHELL"];
  const before = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  const put = (values) => {
    for (const n of names) {
      if (typeof values[n] === "string") process.env[n] = values[n];
      else delete process.env[n];
    }
  };
  put(shell);
  try {
    return await work();
  } finally {
    put(before);
  }
}

// The release's default tool catalog, as its runner builds it for a main session of an empty
// workspace and config: every tool with Tool Search off, the ones Tool Search keeps visible
// (and the search tools it adds), and the tools a subagent gets (with its descriptions).
async function catalogAnswer(req) {
  const workspace = path.join(process.cwd(), "catalog-workspace");
  fs.mkdirSync(workspace, { recursive: true });
  const base = {
    workspace,
    agentId: "main",
    sessionKey: "agent:main:main",
    model: "ctxscope/catalog",
    api: req.api || "openai-completions",
    promptMode: "full",
    subagent: null,
  };
  // Tool Search as the release sets it by default, or off.
  const withSearch = (on) => ({ ...base, config: on ? {} : { tools: { toolSearch: false } } });
  const all = await runnerAnswer(withSearch(false));
  const searched = await runnerAnswer(withSearch(true));
  const child = await runnerAnswer({
    ...withSearch(false),
    sessionKey: "agent:main:subagent:ctxscope-catalog",
    promptMode: "minimal",
    subagent: { task: "catalog", label: "", requesterSessionKey: "agent:main:main", depth: 1, maxDepth: 1 },
  });
  return { strategy: "runner", all: all.tools, searched: searched.tools, child: child.tools };
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
    const work =
      req.kind === "catalog"
        ? runner
          ? catalogAnswer(req)
          : Promise.reject(new Error(`OpenClaw ${version}'s runner prepares no attempt in stages`))
        : runner
          ? runnerAnswer(req)
          : withShell(req.run?.shell, () => answer(req));
    say({ id: req.id, ok: true, ...(await work) });
  } catch (err) {
    say({ id: req.id, ok: false, error: String(err?.stack ?? err).split("\n").slice(0, 3).join(" | ") });
  }
}
process.exit(0);
