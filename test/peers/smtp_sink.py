#!/usr/bin/python3
# A real SMTP server for the notification tests (Debian's python3-aiosmtpd), on loopback:
#   smtp_sink.py PORT OUTDIR USER PASSWORD
# It requires AUTH (PLAIN or LOGIN) with USER/PASSWORD (no TLS: loopback only), and writes each
# accepted message to OUTDIR/<n>.json as {"mail_from", "rcpt_tos", "auth_user", "data" (as sent), "subject", "text" (decoded)}, then
# renames it into place, so a reader never sees half a file. Prints "ready" once listening.
import asyncio, email, email.policy, json, os, sys, warnings
warnings.simplefilter("ignore")
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

port, outdir, user, password = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
os.makedirs(outdir, exist_ok=True)
count = [0]

def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
    # handled=False: aiosmtpd answers a refusal with 535 (with its default, True, it answers nothing and the client waits).
    return AuthResult(success=ok, handled=False, auth_data=auth_data)

class Sink:
    async def handle_DATA(self, server, session, envelope):
        count[0] += 1
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        name = os.path.join(outdir, f"{os.getpid()}-{count[0]:04d}.json")
        with open(name + ".tmp", "w") as f:
            json.dump({
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "auth_user": session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None,
                "data": envelope.content.decode("utf8", "replace"),
                "subject": str(parsed["subject"]),
                "text": parsed.get_body(("plain",)).get_content(),
            }, f)
        os.rename(name + ".tmp", name)
        return "250 OK"

controller = Controller(Sink(), hostname="127.0.0.1", port=port, authenticator=authenticator, auth_required=True, auth_require_tls=False)
controller.start()
print("ready", flush=True)
try:
    asyncio.get_event_loop().run_until_complete(asyncio.Event().wait())
except KeyboardInterrupt:
    pass
finally:
    controller.stop()
