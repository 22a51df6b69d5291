"""The one-door side effects: user folders and the one writer (`paths`), the stat-keyed reads
of a build (`snapshot`), a runtime's or store's JSON files (`filememo`), child processes
(`processes`, `crew`) and the collector (`tuning`)."""
