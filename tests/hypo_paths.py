"""The hypothesis settings and path strategies the index and match-set tests share."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

component = st.text(alphabet="abcAB_-.é", min_size=1, max_size=6)
path = st.lists(component, min_size=1, max_size=4).map("/".join)
paths = st.lists(path, min_size=0, max_size=30)
