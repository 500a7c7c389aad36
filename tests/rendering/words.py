"""The picture labels as the callers pass them: worded by the i18n catalogue."""

from __future__ import annotations

import i18n
from rendering import Labels

EN = Labels(**i18n.render_labels("en"))
DE = Labels(**i18n.render_labels("de"))
