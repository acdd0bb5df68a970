"""The prompt: the input, what it offers while you type (commands, models, ``@`` files)
and the ``@`` picker's repo paths."""
