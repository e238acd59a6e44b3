"""The memory portal: MkDocs + Material site generated from the compaction result."""
