#!/usr/bin/env python3
"""asio_client.py - the bounded client of asio_server.cc for `make field`:
CONNECTIONS keep-alive connections on 127.0.0.1 send REQUESTS requests in
all, numbered 0..REQUESTS-1; request K goes to /timer when K % 10 == 0, to
/pool when K % 10 == 1, else to /page; then, once every response is in, one
GET /stop?n=REQUESTS on a connection of its own, which the server answers
(its page rendered as /pool renders it) and then stops.  Checks each
response (status 200, the page for its route and number) and prints the
requests per route, the failures and a CRC-32 of the bodies in request
order.
Usage: asio_client.py PORT REQUESTS CONNECTIONS"""
import http.client
import sys
import threading
import zlib


def route_of(k):
    return "timer" if k % 10 == 0 else "pool" if k % 10 == 1 else "page"


def expected_body(route, n):
    items = "".join("<li>%d</li>" % (n * i) for i in range(1, 41))
    total = sum(n * i for i in range(1, 41))
    return "<html><body><h1>%s %d</h1><ul>%s</ul><p>%d</p></body></html>\n" % (route, n, items, total)


def main():
    port, requests, connections = (int(a) for a in sys.argv[1:4])
    bodies = [None] * requests
    failures = []

    def client(first):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for k in range(first, requests, connections):
            conn.request("GET", "/%s?n=%d" % (route_of(k), k))
            response = conn.getresponse()
            body = response.read().decode()
            if response.status != 200 or body != expected_body(route_of(k), k):
                failures.append(k)
            bodies[k] = body
        conn.close()

    threads = [threading.Thread(target=client, args=(c,)) for c in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/stop?n=%d" % requests)
    response = conn.getresponse()
    if response.status != 200 or response.read().decode() != expected_body("stop", requests):
        failures.append(requests)
    conn.close()
    for route in ("page", "timer", "pool"):
        print("client %s requests %d" % (route, sum(1 for k in range(requests) if route_of(k) == route)))
    print("client stop requests 1")
    print("client failures %d" % len(failures))
    crc = 0
    for body in bodies:
        crc = zlib.crc32((body or "").encode(), crc)
    print("client bodies crc32 %08x" % crc)


main()
