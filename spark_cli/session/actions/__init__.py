"""What the model or the user makes spark run: the one policy for every action
(`orchestrator`), the question and the "always" answers (`approval`), the model's
``run_command`` calls (`commands`) and ``/test`` (`test_runs`)."""
