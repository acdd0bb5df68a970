"""What a server says about its model's window: asked once, parsed, cached (see docs/providers.md).

- :mod:`.answers`: each server's answer (llama.cpp ``/props``, Ollama ``/api/show``,
  vLLM and LM Studio model lists, ...) turned into a window, pure;
- the windows of hosted models spark knows by name (OpenAI, Cerebras) live in
  ``session/window/facts.py``;
- :mod:`.probe`: the blocking HTTP asks (no event loop: a one-shot asks before its
  request leaves), and the server's own tokenizer where it has one.
"""
