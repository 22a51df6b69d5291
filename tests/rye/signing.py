"""Sign Rye items as `rye sign` does, with a key made for the test: a space's trusted key
goes to its `.ai/config/keys/trusted/<fingerprint>.toml`, each item gets its signature line.

The format (fields, what is hashed, what is signed) is ryeos 0.1.30's; ryeos itself checks
these signatures in the comparison tests, so a mistake here fails there.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ctxscope.runtimes.rye.integrity import TRUSTED, fingerprint, signed_part

STAMP = "2026-11-26T12:00:00Z"


class Key:
    """An Ed25519 key pair and its fingerprint."""

    def __init__(self) -> None:
        self.private = Ed25519PrivateKey.generate()
        self.pem = (
            self.private.public_key()
            .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )
        self.fp = fingerprint(self.pem)

    def trust(self, ai: Path) -> Path:
        """Put this key in the trust store of the space `ai` (a `.ai` folder)."""
        path = ai / TRUSTED / f"{self.fp}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = self.pem.strip()
        path.write_text(
            f'version = "1.0.0"\ncategory = "keys/trusted"\nfingerprint = "{self.fp}"\n'
            f'owner = "test"\nattestation = ""\n\n[public_key]\npem = """\n{pem}\n"""\n'
        )
        return path

    def line(self, content_hash: str) -> str:
        sig = self.private.sign(content_hash.encode())
        b64 = base64.urlsafe_b64encode(sig).decode().rstrip("=")
        return f"<!-- rye:signed:{STAMP}:{content_hash}:{b64}:{self.fp} -->\n"

    def sign(self, kind: str, text: str) -> str:
        """`text` with its signature line (a directive without `<directive>` stays as is)."""
        part = signed_part(kind, text)  # type: ignore[arg-type]
        if part is None:
            return text
        return self.line(hashlib.sha256(part.encode()).hexdigest()) + text


def kind_of(rel: str) -> str | None:
    """`directive` or `knowledge` for a path under `.ai/` (None: not a signed kind)."""
    top = rel.split("/", 1)[0]
    return {"directives": "directive", "knowledge": "knowledge"}.get(top)


def sign_tree(ai: Path, key: Key) -> list[Path]:
    """Sign every unsigned directive and knowledge file under `ai`; trust `key` there."""
    key.trust(ai)
    done = []
    for path in sorted(ai.rglob("*")):
        kind = kind_of(path.relative_to(ai).as_posix())
        if kind is None or not path.is_file() or path.is_symlink():
            continue
        text = path.read_text()
        if text.startswith("<!-- rye:signed:"):
            text = text.split("\n", 1)[1] if "\n" in text else ""
        path.write_text(key.sign(kind, text))
        done.append(path)
    return done
