"""Signature checks as ryeos 0.1.30 makes them before it loads an item.

Outside its dev mode (`RYE_DEV_MODE=1`) ryeos verifies every directive and knowledge item it
loads: the first line must be a `rye:signed:TIMESTAMP:HASH:SIGNATURE:FINGERPRINT` comment in
its exact format; HASH must be the SHA-256 of the item's signed part (a directive's
`<directive …>…</directive>` element, stripped; a knowledge item's text after the signature
line, or after its `---` front matter, stripped); the key with that FINGERPRINT must be in a
trust store (`.ai/config/keys/trusted/<fingerprint>.toml` of the project, then the user
space, then each system bundle); and SIGNATURE (Ed25519, base64url) must verify the HASH
(as text) with that key. A trusted-key file is used only when its PEM's fingerprint (the
first 16 hex digits of the SHA-256 of the PEM text) is its name and, when it carries a
signature, that signature holds (by the key itself or another trusted key).

What happens to an item that fails is up to the caller (see `thread`): a context item of
the chain is skipped unless its key is untrusted (then the thread does not start); an item a
hook loads, a parent directive or the directive itself stops the thread. In dev mode every
item loads and the verdict says what ryeos would have decided without it.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib
from pathlib import Path
from typing import Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ctxscope.core.model import Diagnostic
from ctxscope.core.record import record
from ctxscope.infra.snapshot import Snapshot
from ctxscope.runtimes.rye.items import universal_newlines
from ctxscope.runtimes.rye.threaddata import ChainNode, ComposedItem, HookDecision, KnowledgeItem
from ctxscope.runtimes.rye.tiers import Space

Kind = Literal["directive", "knowledge"]
State = Literal["verified", "unsigned", "signature-mismatch", "untrusted-key", "stand-in"]

_FIELDS = (
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z):([a-f0-9]{64}):([A-Za-z0-9_-]+={0,2})"
    r":([a-f0-9]{16})(?:\|[a-zA-Z0-9_-]+@[a-zA-Z0-9_-]+)?"
)
_ITEM_SIG = re.compile(r"<!-- rye:signed:" + _FIELDS + " -->")
_ITEM_SIG_LINE = re.compile(r"<!-- (?:rye|kiwi-mcp):(?:validated|signed):[^>]+-->\n")
_KEY_SIG = re.compile(r"(?:#!/[^\n]*\n)?# rye:signed:" + _FIELDS)
_KEY_SIG_LINE = re.compile(r"# (?:rye|kiwi-mcp):(?:validated|signed):[^\n]+\n")
_SHEBANG = re.compile(r"#!/[^\n]*\n")
_DIRECTIVE_OPEN = re.compile(r"<directive[^>]*>")
_SPKI_ED25519 = bytes.fromhex("302a300506032b6570032100")
"""How the DER of an Ed25519 public key (SubjectPublicKeyInfo) starts; its last 32 bytes are
the key."""
TRUSTED = Path("config") / "keys" / "trusted"
"""Where a space keeps its trusted keys (one `<fingerprint>.toml` each)."""


@record(frozen=True)
class Verdict:
    """What ryeos's check of one item decides, and whether the item loads here."""

    state: State
    detail: str
    dev_mode: bool = False
    """Checked in dev mode: the item loads whatever `state` says."""

    @property
    def passed(self) -> bool:
        return self.state in ("verified", "stand-in")

    @property
    def loads(self) -> bool:
        return self.passed or self.dev_mode

    @property
    def label(self) -> str:
        """One short phrase: `signed (verified)`, `unsigned`, `untrusted key …`, …"""
        base = {
            "verified": "signed (verified)",
            "stand-in": "stand-in (ryeos's own item is signed)",
        }.get(self.state, self.detail)
        return f"{base} (dev mode loads it)" if self.dev_mode and not self.passed else base


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(pem: str) -> str:
    """A public key's fingerprint as ryeos names it: the PEM text, stripped, with one
    newline, hashed (SHA-256), first 16 hex digits."""
    return _sha256(pem.strip() + "\n")[:16]


def ed25519_ok(pem: str, signature: str, content_hash: str) -> bool:
    """True when `signature` (base64url) is the Ed25519 signature of `content_hash` (the hex
    text) by the public key in `pem`."""
    lines = pem.strip().split("\n")
    if len(lines) < 3 or lines[0] != "-----BEGIN PUBLIC KEY-----":
        return False
    if lines[-1] != "-----END PUBLIC KEY-----":
        return False
    try:
        der = base64.b64decode("".join(lines[1:-1]), validate=True)
        raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
        if len(der) != 44 or not der.startswith(_SPKI_ED25519):
            return False
        Ed25519PublicKey.from_public_bytes(der[12:]).verify(raw, content_hash.encode())
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def signed_part(kind: Kind, text: str) -> str | None:
    """The part of an item ryeos hashes (None: a directive without a `<directive>` element)."""
    if kind == "directive":
        start = _DIRECTIVE_OPEN.search(text)
        end = text.rfind("</directive>")
        if start is None or end < start.start():
            return None
        return text[start.start() : end + len("</directive>")].strip()
    rest = _ITEM_SIG_LINE.sub("", text, count=1) if _ITEM_SIG_LINE.match(text) else text
    if rest.startswith("---") and (close := rest.find("---", 3)) >= 0:
        return rest[close + 3 :].strip()
    return rest


class TrustStore:
    """The trusted keys of the spaces, looked up by fingerprint as ryeos looks them up."""

    def __init__(self, snapshot: Snapshot, folders: list[Path]) -> None:
        self.snapshot = snapshot
        self.folders = folders
        self._keys: dict[str, str | None] = {}

    def key(self, fp: str, loading: frozenset[str] = frozenset()) -> str | None:
        """The PEM of trusted key `fp` (None: not trusted anywhere)."""
        if not loading and fp in self._keys:
            return self._keys[fp]
        found = None
        for folder in self.folders:
            pem = self._read(folder / f"{fp}.toml", fp, loading)
            if pem is not None:
                found = pem
                break
        if not loading:
            self._keys[fp] = found
        return found

    def _read(self, path: Path, fp: str, loading: frozenset[str]) -> str | None:
        fr = self.snapshot.read(path)
        if not fr.exists:
            return None
        text = universal_newlines(fr.text)
        body = "\n".join(ln for ln in text.split("\n") if not ln.startswith("# rye:signed:"))
        try:
            data = tomllib.loads(body)
            pem = str(data.get("public_key", {}).get("pem", "")).strip() + "\n"
            named = str(data["fingerprint"])
        except (tomllib.TOMLDecodeError, KeyError, AttributeError):
            return None
        if fingerprint(pem) != fp:
            return None
        sig = _KEY_SIG.match(text)
        if sig is None:
            return pem  # an unsigned key file is trusted as it is
        rest = _SHEBANG.sub("", text, count=1)
        rest = _KEY_SIG_LINE.sub("", rest, count=1)
        content_hash, signature, signer = sig.group(2), sig.group(3), sig.group(4)
        if _sha256(rest) != content_hash:
            return None
        if signer == named:
            return pem if ed25519_ok(pem, signature, content_hash) else None
        if signer in loading:
            return pem
        signer_pem = self.key(signer, loading | {named})
        if signer_pem is None or not ed25519_ok(signer_pem, signature, content_hash):
            return None
        return pem


class Verifier:
    """ryeos's check of each item of one build (`dev_mode`: every item loads anyway)."""

    def __init__(
        self,
        snapshot: Snapshot,
        spaces: list[Space],
        *,
        dev_mode: bool,
        stand_in: bool,
        home: Path | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.dev_mode = dev_mode
        self.stand_in = stand_in
        folders = [s.root / TRUSTED for s in spaces if s.tier == "project"]
        user = [s.root / TRUSTED for s in spaces if s.tier == "user"]
        if not user and home is not None:
            user = [home / ".ai" / TRUSTED]  # ryeos's user space: the home folder
        folders += user
        if not stand_in:
            folders += [s.root / TRUSTED for s in spaces if s.tier == "system"]
        self.trust = TrustStore(snapshot, folders)
        self._seen: dict[tuple[str, str], Verdict] = {}

    def check(self, kind: Kind, path: str, tier: str | None) -> Verdict:
        key = (kind, path)
        if key not in self._seen:
            self._seen[key] = self._check(kind, path, tier)
        return self._seen[key]

    def _check(self, kind: Kind, path: str, tier: str | None) -> Verdict:
        if tier == "system" and self.stand_in:
            return Verdict("stand-in", "ctxscope's stand-in for a bundled item ryeos signs")
        fr = self.snapshot.read(Path(path))
        text = universal_newlines(fr.text) if fr.exists else ""
        dev = self.dev_mode
        sig = _ITEM_SIG.match(text)
        if sig is None:
            why = (
                "unsigned"
                if "rye:signed:" not in text.split("\n", 1)[0]
                else ("unsigned (its signature line is not in ryeos's format)")
            )
            return Verdict("unsigned", why, dev)
        content_hash, signature, fp = sig.group(2), sig.group(3), sig.group(4)
        part = signed_part(kind, text)
        if part is None or _sha256(part) != content_hash:
            return Verdict("signature-mismatch", "signature mismatch (changed since signing)", dev)
        pem = self.trust.key(fp)
        if pem is None:
            return Verdict("untrusted-key", f"untrusted key {fp}", dev)
        if not ed25519_ok(pem, signature, content_hash):
            return Verdict("signature-mismatch", f"signature mismatch (key {fp})", dev)
        return Verdict("verified", f"signed by trusted key {fp}", dev)

    def hook_item(
        self,
        hook: str,
        item: KnowledgeItem,
        item_id: str,
        diags: list[Diagnostic],
        dec: HookDecision,
    ) -> bool:
        """ryeos verifies an item a hook loads before loading it; outside dev mode a failure
        stops the thread. True: the item loads."""
        v = self.check("knowledge", item.path, item.tier)
        if v.passed:
            return True
        if v.loads:
            dec.reason += f"; '{item_id}' is {v.detail} (dev mode loads it)"
            what = f"hook {hook} loads '{item_id}', which is {v.detail}"
            diags.append(_dev_note(what, "would not start", item))
            return True
        dec.reason += f"; '{item_id}' is {v.detail}: not loaded"
        diags.append(
            Diagnostic(
                "error",
                f"hook {hook} loads '{item_id}', which is {v.detail} ({DEV_HINT})",
                item.path,
                code="rye-thread-refused",
            )
        )
        return False


DEV_HINT = "dev mode loads it: --rye-dev-mode or RYE_DEV_MODE=1"


def check_chain(
    verifier: Verifier, nodes: list[ChainNode], composed: dict[str, list[ComposedItem]]
) -> tuple[list[tuple[str, str | None]], list[Diagnostic]]:
    """Check the chain's directives (leaf first) and the context items it loads, as ryeos
    does: a directive that fails stops the thread (its entry point verifies the directive,
    the chain walk each parent); a context item that fails is skipped, except one signed by
    an untrusted key, which stops the thread. Returns (refusals as (cause, path), notes)."""
    refusals: list[tuple[str, str | None]] = []
    notes: list[Diagnostic] = []
    for i, node in enumerate(nodes):
        if node.path is None:
            continue
        v = verifier.check("directive", node.path, node.tier)
        node.signature = v.label
        what = "the directive" if i == 0 else "parent directive"
        if not v.loads:
            refusals.append((f"{what} '{node.id}' is {v.detail} ({DEV_HINT})", node.path))
        elif not v.passed:
            notes.append(_dev_note(f"{what} '{node.id}' is {v.detail}", "would not start", node))
    for items in composed.values():
        for item in items:
            k = item.knowledge
            if item.status != "included" or k is None:
                continue
            v = verifier.check("knowledge", k.path, k.tier)
            item.integrity = v.label
            stops = v.state == "untrusted-key"
            if v.loads:
                if not v.passed:
                    fate = "would not start" if stops else "would skip it"
                    notes.append(_dev_note(f"knowledge '{item.item_id}' is {v.detail}", fate, k))
                continue
            if stops:
                refusals.append(
                    (f"context knowledge '{item.item_id}' is signed by an {v.detail}", k.path)
                )
            item.status = "unverified"
            item.rule = f"not loaded: {v.detail}; ryeos skips it ({DEV_HINT})"
            if stops:
                item.rule = f"not loaded: {v.detail}; ryeos stops the thread ({DEV_HINT})"
    return refusals, notes


def _dev_note(what: str, fate: str, where: ChainNode | KnowledgeItem) -> Diagnostic:
    return Diagnostic(
        "info",
        f"dev mode: {what}; loaded unchecked (outside dev mode ryeos {fate})",
        where.path,
        code="rye-dev-mode",
    )
