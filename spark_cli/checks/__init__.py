"""Running commands on request: the test command, the model's run_command, sandbox, policy."""
