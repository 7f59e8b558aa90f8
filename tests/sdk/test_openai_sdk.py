"""The official `openai` Python SDK against `dsh-host serve`, whose upstream is the embedded mock.

Each test is one scenario of issue #11 item 6, run by tests/e2e/gateway_sdk.rs (`cargo test -p
dsh-host --test e2e gateway_sdk`): the Rust side starts the mock with the scenario's script and the
gateway on an ephemeral port, runs exactly one test here, then checks what the upstream received and
what the session log holds. Here is what an application sees: the SDK's return values and the
exceptions it raises, with the SDK configured as applications configure it.

Run alone, these tests fail: they need the gateway the Rust harness starts (DSH_GATEWAY_BASE_URL).
"""

import json
import os

import openai
import pytest


def gateway():
    url = os.environ.get("DSH_GATEWAY_BASE_URL")
    if not url:
        pytest.fail(
            "DSH_GATEWAY_BASE_URL is not set: these tests run against a gateway and mock started by "
            "the Rust harness; run `cargo test -p dsh-host --test e2e gateway_sdk`"
        )
    return url, os.environ["DSH_GATEWAY_KEY"]


def client(**options):
    """The SDK as an application builds it; a bounded timeout so that a hung gateway fails the test."""
    url, key = gateway()
    return openai.OpenAI(base_url=url, api_key=key, timeout=30.0, **options)


def report(**values):
    """Hands values (session ids, what was received) to the Rust side, which checks the log."""
    with open(os.environ["DSH_SDK_REPORT"], "w") as f:
        json.dump(values, f)


HELLO = [{"role": "user", "content": "Say hello."}]


def read_stream(stream):
    """Text, reasoning, finish reason, usage and models of a stream, as an application gathers them."""
    out = {"text": [], "reasoning": [], "finish": None, "usage": None, "models": set()}
    for chunk in stream:
        out["models"].add(chunk.model)
        if chunk.usage is not None:
            out["usage"] = chunk.usage
        for choice in chunk.choices:
            if choice.delta.content:
                out["text"].append(choice.delta.content)
            # Not in OpenAI's schema: the SDK keeps unknown fields (DeepSeek's name for reasoning).
            reasoning = getattr(choice.delta, "reasoning_content", None)
            if reasoning:
                out["reasoning"].append(reasoning)
            if choice.finish_reason:
                out["finish"] = choice.finish_reason
    return out


def test_streaming_text():
    stream = client(max_retries=0).chat.completions.create(
        model="gpt-test", messages=HELLO, stream=True, stream_options={"include_usage": True}
    )
    session = stream.response.headers["x-dsh-session"]
    got = read_stream(stream)
    # Each upstream piece is forwarded as it came, not gathered into one chunk.
    assert got["text"] == ["Hel", "lo", ", world"]
    assert got["finish"] == "stop"
    assert got["models"] == {"gpt-test"}, "responses carry the client's model name"
    usage = got["usage"]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (7, 3, 10)
    report(session=session)


def test_non_streaming():
    raw = client(max_retries=0).chat.completions.with_raw_response.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": [{"type": "text", "text": "Say"}, {"type": "text", "text": "hello."}]},
        ],
        max_completion_tokens=64,
        temperature=0.25,
        top_p=0.5,
        stop=["\n\n"],
        reasoning_effort="low",
        response_format={"type": "json_object"},
        n=1,
        user="sdk-test",
    )
    assert raw.status_code == 200
    completion = raw.parse()
    choice = completion.choices[0]
    assert choice.message.content == "Hello, world"
    assert choice.message.role == "assistant"
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    assert completion.model == "gpt-test"
    assert completion.object == "chat.completion"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (7, 3)
    report(session=raw.headers["x-dsh-session"])


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def get_weather(city):
    return f"sunny, 21 C in {city}"


def test_tool_call_round_trip():
    c = client(max_retries=0)
    # Non-streaming: the SDK's message object goes back into the conversation, as its docs show.
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = c.chat.completions.create(model="gpt-test", messages=messages, tools=[WEATHER_TOOL], tool_choice="auto")
    assert first.choices[0].finish_reason == "tool_calls"
    message = first.choices[0].message
    assert message.content is None
    (call,) = message.tool_calls
    assert (call.id, call.type, call.function.name) == ("call_w1", "function", "get_weather")
    args = json.loads(call.function.arguments)
    assert args == {"city": "Paris"}
    messages.append(message)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    answer = c.chat.completions.create(model="gpt-test", messages=messages, tools=[WEATHER_TOOL])
    assert answer.choices[0].message.content == "It is sunny in Paris."
    assert answer.choices[0].finish_reason == "stop"

    # Streaming: the call arrives as deltas that the application joins by index.
    messages = [{"role": "user", "content": "And in Oslo?"}]
    calls = {}
    finish = None
    stream = c.chat.completions.create(model="gpt-test", messages=messages, tools=[WEATHER_TOOL], stream=True)
    for chunk in stream:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                entry = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
                if delta.id:
                    entry["id"] = delta.id
                if delta.function and delta.function.name:
                    entry["name"] += delta.function.name
                if delta.function and delta.function.arguments:
                    entry["arguments"] += delta.function.arguments
            finish = choice.finish_reason or finish
    assert finish == "tool_calls"
    assert list(calls) == [0]
    call = calls[0]
    assert (call["id"], call["name"]) == ("call_w2", "get_weather")
    args = json.loads(call["arguments"])
    assert args == {"city": "Oslo"}
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}
            ],
        }
    )
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": get_weather(**args)})
    got = read_stream(c.chat.completions.create(model="gpt-test", messages=messages, tools=[WEATHER_TOOL], stream=True))
    assert "".join(got["text"]) == "It is sunny in Oslo."
    assert got["finish"] == "stop"


def test_rate_limit_retried_invisibly():
    # No SDK retries: a 429 that reached the SDK would raise RateLimitError here.
    c = client(max_retries=0)
    raw = c.chat.completions.with_raw_response.create(model="gpt-test", messages=HELLO)
    assert raw.parse().choices[0].message.content == "Hello after a 429"
    stream = c.chat.completions.create(model="gpt-test", messages=HELLO, stream=True)
    streamed_session = stream.response.headers["x-dsh-session"]
    got = read_stream(stream)
    assert "".join(got["text"]) == "Streamed after a 429"
    assert got["finish"] == "stop"
    report(sessions=[raw.headers["x-dsh-session"], streamed_session])


def test_final_rate_limit_not_retried():
    # The SDK's default: two retries of a 429. The gateway has spent its own policy already, and says
    # so with x-should-retry: false; had the SDK retried, the upstream's next step would answer.
    c = client()
    assert c.max_retries == 2
    with pytest.raises(openai.RateLimitError) as raised:
        c.chat.completions.create(model="gpt-test", messages=HELLO)
    e = raised.value
    assert e.status_code == 429
    assert e.code == "rate_limit_exceeded"
    assert e.type == "rate_limit_error"
    assert e.body["message"] == "RATE_LIMITED: Rate limit reached for requests", "the canonical code leads"
    headers = e.response.headers
    assert headers["x-should-retry"] == "false"
    assert headers["x-dsh-failure-code"] == "RATE_LIMITED"
    assert headers["retry-after"] == "1", "the provider's retry-after is passed on"
    report(session=headers["x-dsh-session"])


def test_context_overflow():
    with pytest.raises(openai.BadRequestError) as raised:
        client().chat.completions.create(model="gpt-test", messages=HELLO)
    e = raised.value
    assert e.status_code == 400
    assert e.code == "context_length_exceeded"
    assert e.type == "invalid_request_error"
    assert "maximum context length" in e.message
    assert e.response.headers["x-dsh-failure-code"] == "CONTEXT_WINDOW_EXCEEDED"
    assert e.response.headers["x-should-retry"] == "false"
    report(session=e.response.headers["x-dsh-session"])


def test_midstream_failure_raised():
    c = client(max_retries=0)
    sessions = []
    # Upstream 1 streams two pieces then resets the connection; upstream 2 streams a piece then an
    # in-band error event. Once text has reached the application, a retry would repeat it: the SDK
    # must raise, never end the stream as if the answer were whole.
    for expected_text, expected_code in [("Once upon a time", "network"), ("Going", "server_error")]:
        stream = c.chat.completions.create(model="gpt-test", messages=HELLO, stream=True)
        sessions.append(stream.response.headers["x-dsh-session"])
        text, finishes = [], []
        with pytest.raises(openai.APIError) as raised:
            for chunk in stream:
                for choice in chunk.choices:
                    if choice.delta.content:
                        text.append(choice.delta.content)
                    if choice.finish_reason:
                        finishes.append(choice.finish_reason)
        assert "".join(text) == expected_text
        assert finishes == [], "a cut answer must not look finished"
        e = raised.value
        assert not isinstance(e, openai.APIStatusError), "the status was 200: the error is in the stream"
        assert e.code == expected_code, e.body
        assert e.message.startswith(expected_code.upper() + ": "), e.message
    report(sessions=sessions)


def test_anthropic_upstream():
    c = client(max_retries=0)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi Claude."}]
    stream = c.chat.completions.create(
        model="anthropic/claude-sonnet-4-5", messages=messages, stream=True, stream_options={"include_usage": True}
    )
    session = stream.response.headers["x-dsh-session"]
    got = read_stream(stream)
    assert "".join(got["text"]) == "Hello from Claude"
    assert "".join(got["reasoning"]) == "The user greets."
    assert got["finish"] == "stop"
    assert got["models"] == {"anthropic/claude-sonnet-4-5"}
    assert (got["usage"].prompt_tokens, got["usage"].completion_tokens) == (11, 4)
    whole = c.chat.completions.create(model="anthropic/claude-sonnet-4-5", messages=messages, max_tokens=100)
    assert whole.choices[0].message.content == "Hello again"
    assert whole.model == "anthropic/claude-sonnet-4-5"
    report(session=session)


def test_route_fallback():
    stream = client(max_retries=0).chat.completions.create(model="smart", messages=HELLO, stream=True)
    session = stream.response.headers["x-dsh-session"]
    got = read_stream(stream)
    assert "".join(got["text"]) == "Hello from the fallback"
    assert got["models"] == {"smart"}
    assert got["finish"] == "stop"
    report(session=session)


def test_client_disconnect():
    stream = client(max_retries=0).chat.completions.create(model="gpt-test", messages=HELLO, stream=True)
    session = stream.response.headers["x-dsh-session"]
    received = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            received.append(chunk.choices[0].delta.content)
        if len(received) == 2:
            break
    # The application stops reading and closes the stream: the SDK closes the connection.
    stream.close()
    assert received == ["tick 0 ", "tick 1 "]
    report(session=session, received=received)


def test_thinking_round_trip():
    # An agent loop as people write it: the assistant message object goes back into the list as
    # the SDK returned it. Its extra_content (Anthropic's signed thinking) must survive the trip.
    c = client(max_retries=0)
    messages = [{"role": "user", "content": "What time is it?"}]
    first = c.chat.completions.create(model="anthropic/claude-sonnet-4-5", messages=messages, tools=[CLOCK_TOOL])
    message = first.choices[0].message
    assert message.tool_calls[0].function.name == "clock"
    messages.append(message)
    messages.append({"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "12:00"})
    second = c.chat.completions.create(model="anthropic/claude-sonnet-4-5", messages=messages, tools=[CLOCK_TOOL])
    assert second.choices[0].message.content == "It is noon."
    report(requests=2)


CLOCK_TOOL = {"type": "function", "function": {"name": "clock", "description": "The time.", "parameters": {"type": "object", "properties": {}}}}
