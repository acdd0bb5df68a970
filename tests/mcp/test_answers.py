"""A server's answer as the model reads it: text, JSON for structured content, notes for the
rest, errors marked, long answers cut (on the SDK's own result types)."""

from __future__ import annotations

import mcp_types as t

from spark_cli.mcp.server_link import MAX_OUTPUT, to_result


def test_text_blocks_are_the_answer_even_beside_structured_content() -> None:
    answer = t.CallToolResult(content=[t.TextContent(type="text", text="12:00"),
                                       t.TextContent(type="text", text="UTC")],
                              structured_content={"time": "12:00"})
    result = to_result(answer, "now")
    assert (result.ok, result.output, result.summary) == (True, "12:00\nUTC", "2 lines")


def test_structured_content_alone_is_compact_json() -> None:
    result = to_result(t.CallToolResult(content=[], structured_content={"a": [1, "é"]}), "x")
    assert result.output == '{"a":[1,"é"]}'


def test_images_audio_and_blobs_are_notes() -> None:
    answer = t.CallToolResult(content=[
        t.TextContent(type="text", text="here:"),
        t.ImageContent(type="image", data="A" * 4096, mime_type="image/png"),
        t.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
        t.EmbeddedResource(type="resource", resource=t.BlobResourceContents(
            uri="file:///a.gz", blob="AAAA", mime_type="application/gzip")),
        t.EmbeddedResource(type="resource", resource=t.TextResourceContents(
            uri="file:///r.txt", text="inside")),
        t.ResourceLink(type="resource_link", uri="file:///l", name="l")])
    assert to_result(answer, "x").output.splitlines() == [
        "here:", "[image/png image, 3.0 KB, not shown]", "[audio/wav audio, 3 B, not shown]",
        "[resource file:///a.gz: application/gzip, 3 B, not shown]",
        "[resource file:///r.txt]", "inside", "[resource link file:///l]"]


def test_errors_and_cuts() -> None:
    error = to_result(t.CallToolResult(content=[t.TextContent(type="text", text="bad tz\nmore")],
                                       is_error=True), "now")
    assert (error.ok, error.summary) == (False, "error: bad tz")
    assert error.output == "error from now: bad tz\nmore"
    empty = to_result(t.CallToolResult(content=[]), "x")
    assert empty.output == "(no output)"
    long = to_result(t.CallToolResult(content=[t.TextContent(type="text",
                                                             text="x" * (MAX_OUTPUT + 5))]), "x")
    assert long.output.endswith("\n[cut: 5 more characters]")
