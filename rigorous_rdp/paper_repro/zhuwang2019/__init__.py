"""Figures of the zhuwang2019 source."""
