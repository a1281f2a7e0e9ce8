"""Trial results: the typed model, crash-safe JSON-lines storage, summaries and plots."""
