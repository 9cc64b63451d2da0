"""Graph-level (Relax) experiments: the seed's Relay chapter re-done on TVM 0.27."""
