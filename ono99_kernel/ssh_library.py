"""asyncssh, imported without the warnings its import alone prints.

asyncssh (2.24) names cryptography's DSA key types in annotations as it is imported, and cryptography
47 and later warn at each of them ("CryptographyDeprecationWarning: DSA is deprecated"): five warnings,
ten lines on stderr before any command said its first word. Exactly that warning is silenced, only
while asyncssh is imported; every other warning still shows. Every module imports asyncssh from here.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
    import asyncssh

__all__ = ["asyncssh"]
