"""Shared helpers for the picture tests: decode PNG bytes and read pixels."""

from __future__ import annotations

import io

import pytest
from PIL import Image


def decode(data: bytes) -> Image.Image:
    """PNG bytes -> RGB image (fails on anything that is not a PNG)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


@pytest.fixture
def png():
    return decode
