#!/usr/bin/env bash
# ticket-context.sh — context script that fails on purpose.
#
# It stands for a script whose backing service is down: it prints a reason on stderr and
# exits with code 3. The config sets `errorHandling: "continue"`, so the other scripts still
# run and their content still reaches the task.
echo "ticket tracker is offline (this sample script fails on purpose)" >&2
exit 3
