"""The rules brain: recognise an instruction, run its operation on the files of the
conversation, answer with edit text or a reason it cannot help."""
