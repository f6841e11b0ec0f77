"""Figures of the birrell2024 source."""
