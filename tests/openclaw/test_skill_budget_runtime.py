"""The skills budget's rule, held to the installed releases' own skills loaders: for catalogs
of 3 to 160 generated skills under the default limits and lower ones set in the config, the
release's loader (run by Node on the installed package) and ctxscope's `skillbudget` keep the
same skills in the same order, and the catalog it makes is as long as ctxscope says."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxscope.runtimes.openclaw.skillbudget import Fitted, entry, fit, for_context
from ctxscope.runtimes.openclaw.skillcatalog import catalog_list_chars
from ctxscope.runtimes.profiles import load_profile
from ctxscope.runtimes.skillrules import BudgetRules
from tests import runtimes
from tests.openclaw.manyskills import description, skill_name

LIMITS = [None, (5000, 20), (2500, 150), (600, 150), (18000, 10), (40000, 150)]
COUNTS = [3, 25, 60, 110, 160]

# Node: each scenario's skills handed to the loader's own function; what it lists and how
# long its catalog is printed back. The function is found by the name the bundle exports.
RUN = """
const [file, exported, kind, contextFile, contextExported] = process.argv.slice(-5);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const scenarios = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const mod = await import(file);
const run = mod[exported];
const forContext = contextFile === "-" ? null : (await import(contextFile))[contextExported];
const out = [];
for (const s of scenarios) {
  const limits = s.limits ?? {};
  let prompt;
  if (kind === "compact") {
    prompt = run({ skills: s.skills, ...limits }).prompt;
    if (s.window) prompt = forContext(prompt, s.window);
  } else {
    const entries = s.skills.map((skill) => ({
      skill: { ...skill, baseDir: skill.filePath, source: "openclaw-workspace" },
      frontmatter: {},
    }));
    prompt = run({ entries, config: { skills: { limits } }, workspaceDir: "/tmp" });
  }
  const names = [...prompt.matchAll(/<name>([^<]*)<\\/name>/g)].map((m) => m[1]);
  out.push({ chars: prompt.length, names });
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node() -> str:
    return str(runtimes.get("node24"))


@pytest.fixture(scope="module")
def openclaw_package() -> Path:
    return Path(runtimes.get("openclaw_package"))


@pytest.fixture(scope="module")
def openclaw_package_2() -> Path:
    return Path(runtimes.get("openclaw_package_2"))


def _exported(package: Path, glob: str, function: str) -> tuple[Path, str]:
    """The bundle file that exports `function`, and the name it exports it under."""
    for path in sorted((package / "dist").glob(glob)):
        found = re.search(rf"\b{function} as (\w+)", path.read_text(encoding="utf-8"))
        if found:
            return path, found.group(1)
    pytest.fail(f"no {glob} in {package} exports {function}")


def _skill(i: int) -> dict[str, str]:
    name = skill_name(i)
    text = description(i)
    if i % 7 == 3:  # characters outside ASCII, one outside the BMP
        text = text.replace("notes", "notizen é 🪶")
    return {"name": name, "description": text, "filePath": f"/tmp/ws/skills/{name}/SKILL.md"}


WINDOWS = [20000, 50000, 90000, 200000]
"""Context windows (tokens) under which 2026.9 shortens descriptions again."""


def _scenarios(order: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for count in COUNTS:
        skills = [_skill(i) for i in range(count)]
        if order == "shuffled":
            skills = skills[1::2] + skills[::2]
        for limits in LIMITS:
            set_limits = (
                {"maxSkillsPromptChars": limits[0], "maxSkillsInPrompt": limits[1]}
                if limits
                else {}
            )
            out.append({"skills": skills, "limits": set_limits})
    if order == "shuffled":
        for count in (25, 110):
            skills = [_skill(i) for i in range(count)]
            out += [{"skills": skills, "limits": {}, "window": w} for w in WINDOWS]
    return out


def _model(rules: BudgetRules, scenario: dict[str, Any]) -> tuple[int, list[str]]:
    """ctxscope's catalog chars (as the loader returns it) and the names it lists."""
    entries = [entry(s["name"], s["filePath"], s["description"]) for s in scenario["skills"]]
    if rules.style == "compact":
        entries.sort(key=lambda e: e.name)
    limits = scenario["limits"]
    fitted: Fitted = fit(
        rules,
        entries,
        limits.get("maxSkillsPromptChars", rules.max_chars),
        limits.get("maxSkillsInPrompt", rules.max_count),
    )
    if not fitted.kept:
        return fitted.note_chars, []
    note = fitted.note_chars - 2 if fitted.note_chars else 0
    base = note + rules.intro_chars + fitted.load_line
    chars = base + catalog_list_chars(fitted)
    if scenario.get("window"):
        fitted = for_context(rules, fitted, chars, scenario["window"])
        chars = base + catalog_list_chars(fitted)
    return chars, [e.name for e in fitted.kept]


def _runtime(
    node: str,
    file: Path,
    exported: str,
    kind: str,
    scenarios: list[Any],
    context: tuple[Path | str, str] = ("-", "-"),
) -> Any:
    args = [str(file), exported, kind, str(context[0]), context[1]]
    done = subprocess.run(
        [node, "--input-type=module", "-e", RUN, "--", *args],
        input=json.dumps(scenarios),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _agree(rules: BudgetRules, scenarios: list[Any], said: list[Any]) -> None:
    differ = []
    for scenario, runtime in zip(scenarios, said, strict=True):
        chars, names = _model(rules, scenario)
        if (chars, names) != (runtime["chars"], runtime["names"]):
            differ.append(
                (len(scenario["skills"]), scenario["limits"], chars, runtime["chars"],
                 len(names), len(runtime["names"]))
            )  # fmt: skip
    assert not differ, differ


def test_2026_9_compacts_and_cuts_as_its_loader_does(node: str, openclaw_package: Path) -> None:
    rules = load_profile("openclaw-2026.9").skills_budget
    assert rules is not None
    file, exported = _exported(
        openclaw_package, "skill-prompt-limits-*.mjs", "prepareSkillsForPrompt"
    )
    context = _exported(openclaw_package, "skill-contract-*.mjs", "compactSkillsPromptForContext")
    scenarios = _scenarios("shuffled")
    said = _runtime(node, file, exported, "compact", scenarios, context)
    _agree(rules, scenarios, said)


def test_2026_2_cuts_as_its_loader_does(node: str, openclaw_package_2: Path) -> None:
    rules = load_profile("openclaw-2026.2").skills_budget
    assert rules is not None
    file, exported = _exported(openclaw_package_2, "skills-*.js", "resolveSkillsPromptForRun")
    scenarios = _scenarios("load")
    _agree(rules, scenarios, _runtime(node, file, exported, "cut", scenarios))
