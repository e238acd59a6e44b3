"""memsite: one shared, git-native project memory for AI coding agents."""

__version__ = "0.1.0"
