#!/usr/bin/env bash
# inject-identity.sh — context script (format: arguments).
#
# Resolves a persona alias to the registered agent that should run it and injects the
# persona's charter into the subagent's task. A persona lives in agents/<alias>/ with
#   charter.md  the text to inject
#   parent      the id of the configured agent that runs the persona (auth, model, workspace)
# For any other agent id the script prints nothing, which makes it a silent no-op.
#
# Output (JSON): {"message": <charter>, "targetAgentId": <parent>, ...}
set -euo pipefail

AGENT_ID=""
for arg in "$@"; do
  case "$arg" in
    targetAgentId=*) AGENT_ID="${arg#targetAgentId=}" ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PERSONA="$ROOT/agents/$AGENT_ID"

json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# Only plain ids name a persona folder (no "..", no slashes).
if [[ -z "$AGENT_ID" || ! "$AGENT_ID" =~ ^[A-Za-z0-9_-]+$ ]]; then
  exit 0
fi
if [[ -f "$PERSONA/charter.md" && -f "$PERSONA/parent" ]]; then
  CHARTER="$(cat "$PERSONA/charter.md")"
  PARENT="$(tr -d '[:space:]' < "$PERSONA/parent")"
  printf '{"message": %s, "targetAgentId": %s, "spawnType": "unregistered", "agentName": %s, "subAgentName": %s}\n' \
    "$(json_string "$CHARTER")" "$(json_string "$PARENT")" \
    "$(json_string "$PARENT")" "$(json_string "$AGENT_ID")"
fi
# Registered agents and unknown ids: no output, nothing injected.
exit 0
