"""Workspaces with many skills, written by rule (no skill text is hand-picked to suit the
model): the names are pairs of words, each description a run of clauses whose count and
words follow the skill's number, a few with characters the runtime escapes in its catalog
(`&`, `'`, `<`). Used by the wire cases that pass the releases' skills budgets."""

from __future__ import annotations

VERBS = (
    "audit", "bundle", "check", "draft", "export", "fetch", "graph", "index", "merge",
    "notify", "parse", "query", "render", "sync", "trace", "upload", "verify", "watch",
)  # fmt: skip
NOUNS = (
    "invoices", "logs", "metrics", "notes", "orders", "photos", "queues", "reports",
    "schemas", "tickets", "videos", "wikis",
)  # fmt: skip
CLAUSES = (
    "reads the {noun} folder and keeps a short summary of what changed since the last run",
    "asks before it writes anything outside the workspace",
    "works with {noun} exported from the usual tools & services",
    "stops at the first error and says which file caused it",
    "uses the team's naming rules for {noun}",
    "never sends data to a service it was not told about",
    "prints a table of <name, size, age> for each item it touched",
    "can run on a schedule or when a message asks for it",
    "keeps its own notes in memory/{noun}.md so the next run starts where this one ended",
)


def skill_name(i: int) -> str:
    return f"{VERBS[i % len(VERBS)]}-{NOUNS[(i // len(VERBS)) % len(NOUNS)]}-{i:03d}"


def description(i: int) -> str:
    noun = NOUNS[(i * 7) % len(NOUNS)]
    count = 2 + i % 4  # two to five clauses
    parts = [CLAUSES[(i + 2 * k) % len(CLAUSES)].format(noun=noun) for k in range(count)]
    text = f"{VERBS[i % len(VERBS)].capitalize()} {noun}: " + "; ".join(parts) + "."
    return text


def skill_files(count: int, folder: str = "ws/skills") -> dict[str, str | bytes]:
    """`count` skills under `folder`, each `<name>/SKILL.md` with its frontmatter and a body."""
    out: dict[str, str | bytes] = {}
    for i in range(count):
        name = skill_name(i)
        text = description(i).replace("'", "''")
        out[f"{folder}/{name}/SKILL.md"] = (
            f"---\nname: {name}\ndescription: '{text}'\n---\n\n# {name}\n\nSteps for {name}.\n"
        )
    return out
