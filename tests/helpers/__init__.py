"""Helpers the tests share (imported as helpers.NAME): data builders, app drivers, the textbook trainer."""
