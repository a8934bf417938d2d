#!/usr/bin/env python3
"""An SMTP server for the email adapter's tests: it records every message it accepts.

Each accepted message is written to the spool folder as <name>.eml (the DATA bytes exactly as
received) beside <name>.json (the envelope: MAIL FROM and RCPT TO), the .eml renamed into place
last so a reader never sees half a message. Tests make it refuse through the recipient:
  RCPT TO:<reject...@...>  -> 550 (permanent refusal)
  RCPT TO:<busy...@...>    -> 451 (transient refusal)
AUTH PLAIN/LOGIN is offered without TLS (loopback only) and accepts any user whose password is
the one given (--password); any other password gets 535.

Usage: smtp_sink.py --host 127.0.0.1 --port 10025 --spool DIR [--password secret]
"""

import argparse
import json
import os
import threading
import time
import uuid

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, spool):
        self.spool = spool

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@", 1)[0].lower()
        if local.startswith("reject"):
            return "550 5.1.1 Mailbox unavailable (test refusal)"
        if local.startswith("busy"):
            return "451 4.3.0 Try again later (test refusal)"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        name = "%d-%s" % (time.time_ns(), uuid.uuid4().hex)
        meta = {"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}
        with open(os.path.join(self.spool, name + ".json"), "w") as f:
            json.dump(meta, f)
        tmp = os.path.join(self.spool, "." + name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(envelope.original_content or envelope.content)
        os.rename(tmp, os.path.join(self.spool, name + ".eml"))
        return "250 Message accepted"


def authenticator(password):
    def check(server, session, envelope, mechanism, auth_data):
        if isinstance(auth_data, LoginPassword) and auth_data.password.decode() == password:
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    return check


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=10025)
    parser.add_argument("--spool", required=True)
    parser.add_argument("--password", default="secret")
    args = parser.parse_args()
    os.makedirs(args.spool, exist_ok=True)
    controller = Controller(
        Sink(args.spool),
        hostname=args.host,
        port=args.port,
        decode_data=False,
        authenticator=authenticator(args.password),
        auth_required=False,
        auth_require_tls=False,
        data_size_limit=64 * 1024 * 1024,
    )
    controller.start()
    print("smtp sink on %s:%d, spool %s" % (args.host, args.port, args.spool), flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
