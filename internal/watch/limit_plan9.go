package watch

// limitHint: Plan 9 has no watch limits to name (and fsnotify no backend:
// New already warned that watching is unavailable).
func limitHint(error) (string, bool) { return "", false }
