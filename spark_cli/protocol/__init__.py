"""What client and engine share: wire types, SSE framing, file blocks, tokens; no I/O,
imports nothing of spark. Each side's own codecs live with it (transport/, engine/wire/)."""
