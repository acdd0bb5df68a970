"""The rules brain: recognise an instruction, run its operation on the conversation's files,
answer with edit text or a reason it cannot help."""
