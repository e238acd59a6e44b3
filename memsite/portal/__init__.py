"""The memory portal: an MkDocs + Material site generated from the compaction result."""
