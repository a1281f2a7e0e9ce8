"""Configuration errors: each names the file, the place in it and the fix."""


class ConfigError(ValueError):
    """An invalid topology or profile."""
