"""Pure rules over values: the schema, entries, compaction, review, standing, ranking,
similarity, the index budget, secrets and the token estimate. Nothing here reads the clock,
the environment or the disk."""
