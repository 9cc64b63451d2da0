"""Experiment families: each measures and emits raw records; none formats pages."""
