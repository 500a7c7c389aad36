"""German command names and descriptions for Discord's localisation fields.

discord.py asks the translator for every ``locale_str`` of the command tree when it syncs; we
answer for German locales from the i18n catalogue (key ``slash.<English string>``) and leave every
other locale to the English default.
"""

from __future__ import annotations

import re

import discord
from discord import app_commands

import i18n

#: What Discord accepts as a chat-input command or option name.
NAME_RE = re.compile(r"^[-_\w]{1,32}$")
_NAME_CONTEXTS = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


class RummyTranslator(app_commands.Translator):
    """English is the source language; German comes from the catalogue."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not discord.Locale.german:
            return None
        key = f"slash.{string.message}"
        if not i18n.has(key):
            return None
        text = i18n.template(key, "de")
        if context.location in _NAME_CONTEXTS:
            text = text.lower()
            if not NAME_RE.match(text):
                return None
        return text
