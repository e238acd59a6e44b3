"""Pure rules over values: entries, compaction, review, ranking, similarity, the index budget,
secrets and the token estimate. Nothing here reads the clock, the environment or the disk."""
