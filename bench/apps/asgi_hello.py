"""The "python" scenario's application: a bare ASGI app under uvicorn (one worker).

Answers every HTTP request with 200 "hello, world!\\n"; no framework, so the figures are uvicorn's
and the proxy's, not a framework's.
Run: python3 -m uvicorn --app-dir bench/apps asgi_hello:app --port PORT
"""

BODY = b"hello, world!\n"
HEADERS = [(b"content-type", b"text/plain"), (b"content-length", str(len(BODY)).encode())]


async def app(scope, receive, send):
    if scope["type"] != "http":  # lifespan: nothing to set up
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
