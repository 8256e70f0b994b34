#!/usr/bin/env python3
"""Management credentials of the controllers that ./openbox, the demo and the system tests
start: created once, kept, and handed to the controller as hashes.

Directory: $OPENBOX_CREDENTIALS, else $OPENBOX_ROOT/build/credentials (mode 0700), holding

  credentials            (0600) for people and scripts, KEY=VALUE lines:
                         OPENBOX_OPERATOR_USER / _PASSWORD  log in to the UI or use HTTP Basic; may act
                         OPENBOX_VIEWER_USER / _PASSWORD    may only read
                         OPENBOX_API_TOKEN                  operator bearer token (Authorization: Bearer ...)
  controller.properties  (0600) what the controller reads (--spring.config.additional-location):
                         PBKDF2 hashes of the passwords, SHA-256 of the token. Written again
                         whenever `credentials` is newer (after an edit).

Delete the directory to get new credentials.

  credentials.py ensure    creates what is missing; prints the controller.properties path
  credentials.py header    prints the line "Authorization: Bearer TOKEN" (curl -H @FILE)
"""
import binascii
import hashlib
import os
import secrets
import sys

ROOT = os.environ.get("OPENBOX_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Spring Security's {pbkdf2@SpringSecurity_v5_8}: PBKDF2-HMAC-SHA256, 310000 iterations,
# 16-byte salt, 256-bit hash, hex of salt + hash
PBKDF2_ID, PBKDF2_ITERATIONS, PBKDF2_SALT = "pbkdf2@SpringSecurity_v5_8", 310000, 16


def directory():
    return os.environ.get("OPENBOX_CREDENTIALS") or os.path.join(ROOT, "build", "credentials")


def _write_private(path, text):
    """Writes text to path readable by its owner only (replacing any older file at once)."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _read(path):
    values = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                raise SystemExit("%s:%d: not KEY=VALUE" % (path, n))
            k, v = line.split("=", 1)
            values[k.strip()] = v.strip()
    for k in ("OPENBOX_OPERATOR_USER", "OPENBOX_OPERATOR_PASSWORD", "OPENBOX_VIEWER_USER", "OPENBOX_VIEWER_PASSWORD",
              "OPENBOX_API_TOKEN"):
        if not values.get(k):
            raise SystemExit("%s: %s is missing (delete the file to create new credentials)" % (path, k))
    return values


def load(path=None):
    """The credentials as a dict when the file exists (nothing is created), else None."""
    plain = os.path.join(path or directory(), "credentials")
    return _read(plain) if os.path.exists(plain) else None


def pbkdf2(password, salt=None):
    """The password encoded as Spring Security's DelegatingPasswordEncoder reads it."""
    salt = salt if salt is not None else secrets.token_bytes(PBKDF2_SALT)
    dk = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, PBKDF2_ITERATIONS, 32)
    return "{%s}%s" % (PBKDF2_ID, binascii.hexlify(salt + dk).decode())


def ensure(path=None):
    """Creates the credentials (once) and the controller's properties (when out of date);
    returns the credentials as a dict with 'properties' (the controller's file) added."""
    d = path or directory()
    if not os.path.isdir(d):
        os.makedirs(d, mode=0o700)
        os.chmod(d, 0o700)   # whatever the umask
    plain, props = os.path.join(d, "credentials"), os.path.join(d, "controller.properties")
    if not os.path.exists(plain):
        _write_private(plain, "# Management credentials of the OpenBox controller started by ./openbox "
                              "(delete this directory for new ones)\n"
                              "OPENBOX_OPERATOR_USER=operator\n"
                              "OPENBOX_OPERATOR_PASSWORD=%s\n"
                              "OPENBOX_VIEWER_USER=viewer\n"
                              "OPENBOX_VIEWER_PASSWORD=%s\n"
                              "# operator role, for scripts: Authorization: Bearer TOKEN\n"
                              "OPENBOX_API_TOKEN=%s\n"
                       % (secrets.token_urlsafe(18), secrets.token_urlsafe(18), secrets.token_urlsafe(32)))
    creds = _read(plain)
    if not os.path.exists(props) or os.path.getmtime(props) < os.path.getmtime(plain):
        op, vw = creds["OPENBOX_OPERATOR_USER"], creds["OPENBOX_VIEWER_USER"]
        _write_private(props, "# generated from %s by apps/demo/credentials.py: do not edit\n"
                              "openbox.security.users.%s.password=%s\n"
                              "openbox.security.users.%s.roles=OPERATOR\n"
                              "openbox.security.users.%s.password=%s\n"
                              "openbox.security.users.%s.roles=VIEWER\n"
                              "openbox.security.tokens.openbox-cli.token-sha256=%s\n"
                              "openbox.security.tokens.openbox-cli.roles=OPERATOR\n"
                       % (plain, op, pbkdf2(creds["OPENBOX_OPERATOR_PASSWORD"]), op, vw,
                          pbkdf2(creds["OPENBOX_VIEWER_PASSWORD"]), vw,
                          hashlib.sha256(creds["OPENBOX_API_TOKEN"].encode()).hexdigest()))
    creds["properties"] = props
    creds["file"] = plain
    return creds


def controller_args(creds):
    """The controller argument that makes it read the credentials' hashes."""
    return ["--spring.config.additional-location=file:" + creds["properties"]]


def auth_header(creds):
    return {"Authorization": "Bearer " + creds["OPENBOX_API_TOKEN"]}


def main(argv):
    if len(argv) != 2 or argv[1] not in ("ensure", "header"):
        raise SystemExit("usage: credentials.py ensure|header")
    creds = ensure()
    if argv[1] == "ensure":
        print(creds["properties"])
    else:
        print("Authorization: Bearer " + creds["OPENBOX_API_TOKEN"])


if __name__ == "__main__":
    main(sys.argv)
