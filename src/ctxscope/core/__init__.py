"""What every runtime and every face shares: the model of a session, records, tokens, ids,
figures, the context map, YAML loading, line numbers of keys, safe text and secrets. Reads
nothing and starts nothing."""
