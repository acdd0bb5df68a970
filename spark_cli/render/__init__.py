"""Non-interactive front ends: human text and JSON lines for `spark edit` and pipes."""
