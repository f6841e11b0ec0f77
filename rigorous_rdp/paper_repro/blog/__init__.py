"""Figures of the blog source."""
