"""Test-command detection and the on-request test runner."""
