"""Modal screens: scenario editor, "why" answers, trust confirmation."""
