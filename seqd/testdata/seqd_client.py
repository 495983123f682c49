#!/usr/bin/env python3
"""A seqd client in Python, standard library only: plain HTTP/JSON POSTs
(the Connect protocol) to the sequence service.

usage: seqd_client.py BASE_URL TOKEN NAME REQUESTS COUNT
           draws REQUESTS times COUNT values and prints each, one a line
       seqd_client.py --retry BASE_URL TOKEN NAME COUNT
           sends one reservation twice with the same attempt token (a retry
           after a lost answer) and prints each answer's values on a line
"""
import json
import secrets
import sys
import urllib.error
import urllib.request


def reserve_block(base_url, token, name, count, attempt=None):
    """One Reserve: the values of the block the server gives (at most count).
    attempt names the attempt (32 hex digits); a retry repeats it."""
    body = {"name": name, "count": str(count), "token": attempt or secrets.token_hex(16)}
    req = urllib.request.Request(
        base_url.rstrip("/") + "/seqshim.seqd.v1.SequenceService/Reserve",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + token},
        method="POST")
    with urllib.request.urlopen(req, timeout=30) as res:
        block = json.load(res)["block"]  # int64 fields are JSON strings; zeros are left out
    first, step, n = (int(block.get(k, "0")) for k in ("first", "step", "count"))
    return [first + i * step for i in range(n)]


def reserve(base_url, token, name, count):
    """count values of sequence name, in as many Reserves as it takes."""
    values = []
    while len(values) < count:
        values += reserve_block(base_url, token, name, count - len(values))
    return values


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    try:
        if argv[0] == "--retry":
            base_url, token, name, count = argv[1:]
            attempt = secrets.token_hex(16)
            for _ in range(2):
                print(" ".join(map(str, reserve_block(base_url, token, name, int(count), attempt))))
            return 0
        base_url, token, name, requests, count = argv
        for _ in range(int(requests)):
            for v in reserve(base_url, token, name, int(count)):
                print(v)
        return 0
    except urllib.error.HTTPError as e:  # the body says why: {"code": ..., "message": ...}
        sys.exit("seqd: HTTP %d: %s" % (e.code, e.read().decode(errors="replace")))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
