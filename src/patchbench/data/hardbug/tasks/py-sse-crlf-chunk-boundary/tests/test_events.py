"""Hidden tests for ssefeed.  Streams are fed as explicit chunk lists, so every
chunk boundary is chosen by the test."""

from __future__ import annotations

from ssefeed import Event, EventStreamParser, iter_events

CRLF_STREAM = (
    "retry: 2500\r\n"
    ": keep-alive comment\r\n"
    "event: price\r\n"
    "id: 41\r\n"
    'data: {"sym": "ACME",\r\n'
    'data:  "px": 12.5}\r\n'
    "\r\n"
    "data: second\r\n"
    "data\r\n"
    "\r\n"
    "event: done\r\n"
    "data: bye\r\n"
    "\r\n"
)

CRLF_EXPECTED = [
    Event(data='{"sym": "ACME",\n "px": 12.5}', type="price", id="41"),
    Event(data="second\n", type="message", id="41"),
    Event(data="bye", type="done", id="41"),
]


def expect(actual, expected, what: str = "events") -> None:
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def parse(chunks) -> list[Event]:
    return list(iter_events(chunks))


def test_whole_stream_in_one_chunk():
    expect(parse([CRLF_STREAM]), CRLF_EXPECTED)
    expect(parse([CRLF_STREAM.replace("\r\n", "\n")]), CRLF_EXPECTED, "LF stream")
    expect(parse([CRLF_STREAM.replace("\r\n", "\r")]), CRLF_EXPECTED, "CR stream")


def test_crlf_split_between_cr_and_lf():
    chunks = ["data: first line\r", "\ndata: second line\r\n\r\n"]
    expect(parse(chunks), [Event(data="first line\nsecond line")])


def test_every_two_chunk_split_gives_the_same_events():
    for cut in range(len(CRLF_STREAM) + 1):
        got = parse([CRLF_STREAM[:cut], CRLF_STREAM[cut:]])
        expect(got, CRLF_EXPECTED, f"split at {cut} ({CRLF_STREAM[max(cut - 3, 0) : cut]!r}|...)")


def test_byte_stream_fed_one_byte_at_a_time():
    raw = CRLF_STREAM.encode("utf-8")
    expect(parse([raw[i : i + 1] for i in range(len(raw))]), CRLF_EXPECTED)


def test_incremental_feed_joins_a_crlf_split_across_calls():
    parser = EventStreamParser()
    got = parser.feed("data: first line\r")
    got += parser.feed("\ndata: second line\r")
    got += parser.feed("\n\r")
    got += parser.feed("\n")
    expect(got, [Event(data="first line\nsecond line")], "feed() across CR|LF")


def test_lone_cr_endings_across_chunks():
    parser = EventStreamParser()
    got = parser.feed("data: a\r") + parser.feed("data: b\r") + parser.feed("") + parser.feed("\r")
    expect(got, [Event(data="a\nb")])
    got = parser.feed("data: c\r") + parser.feed("\r") + parser.feed("data: d\r\r")
    expect(got, [Event(data="c"), Event(data="d")], "lone CR blank lines")


def test_event_is_dispatched_as_soon_as_its_blank_line_arrives():
    parser = EventStreamParser()
    expect(parser.feed("data: now\r\n\r"), [Event(data="now")], "CRLF then CR")
    expect(parser.feed("\ndata: next\n"), [], "LF completing the CRLF")
    expect(parser.feed("\n"), [Event(data="next")], "after")


def test_field_rules():
    stream = (
        "data:no-space\n"
        "data:  two spaces\n"
        "unknown: ignored\n"
        "id: bad\x00id\n"
        "retry: 10s\n"
        "event\n"
        "\n"
        "event: ping\n"
        "\n"
        "id: 7\n"
        "retry: 3000\n"
        "data: x\n"
        "\n"
    )
    parser = EventStreamParser()
    got = parser.feed(stream)
    expect(got, [Event(data="no-space\n two spaces"), Event(data="x", id="7")])
    expect(parser.retry, 3000, "retry")
    expect(parser.last_event_id, "7", "last event id")


def test_unterminated_event_is_discarded_at_end():
    expect(parse(["data: complete\n\n", "data: partial\n"]), [Event(data="complete")])
    expect(parse(["data: no newline at all"]), [], "no line ending")


def test_utf8_split_and_byte_order_mark():
    chunks = [b"\xef\xbb", b"\xbfdata: caf\xc3", b"\xa9 \xe2\x82", b"\xac\n\n"]
    expect(parse(chunks), [Event(data="caf\u00e9 \u20ac")])
    expect(parse(["\ufeffdata: x\n\n"]), [Event(data="x")], "BOM in text chunk")
