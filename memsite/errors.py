"""The errors memsite raises. The core raises only these; CLI and MCP turn them into messages."""

from __future__ import annotations


class MemsiteError(Exception):
    """A problem the user can act on; the message says what is wrong and what to do."""


class StoreNotFoundError(MemsiteError):
    """No memory store could be located."""


class ConfigError(MemsiteError):
    """The store's config.json is malformed."""


class InvalidInputError(MemsiteError):
    """A value given by a user or an agent breaks the entry rules."""


class EntryNotFoundError(MemsiteError):
    """No entry matches the given id."""


class AmbiguousIdError(MemsiteError):
    """An id prefix matches more than one entry."""


class SecretFoundError(InvalidInputError):
    """A write holds what looks like a credential."""


class InvalidEntryFileError(MemsiteError):
    """An entry file on disk cannot be read as an entry (reported by review, skipped elsewhere)."""


class StorageError(MemsiteError):
    """A file or folder could not be read or written; the message names it and the cause."""


class GitError(MemsiteError):
    """git failed or is missing; the message is git's own first line, or what to install."""
